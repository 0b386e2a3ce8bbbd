// capi_query.cpp — the C API of queries: building and combining them, compound words, the query parser and its
// fields mapped in Swift.

#include "capi.h"

#include <xapian.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

using namespace cxapian::capi;

namespace {

// A boolean field whose text -> term mapping lives on the other side of the boundary (in Swift).
class MappedFieldProcessor : public Xapian::FieldProcessor {
  public:
    MappedFieldProcessor(cxapian_field_mapper mapper, void *context, cxapian_query_parser *owner)
        : mapper_(mapper), context_(context), owner_(owner) {}

    Xapian::Query operator()(const std::string &text) override {
        cxapian_field_result result = {};
        int status = mapper_(context_, text.data(), text.size(), &result);
        Xapian::Query query = Xapian::Query::MatchNothing;
        try {
            if (status == CXAPIAN_FIELD_REJECTED) {
                if (!owner_->rejected) {
                    owner_->rejected = true;
                    owner_->rejection = result.message != nullptr ? result.message : "invalid field value";
                }
            } else if (status == CXAPIAN_FIELD_TERM && result.term != nullptr) {
                query = Xapian::Query(std::string(result.term, result.term_length));
            } else if (status == CXAPIAN_FIELD_ANY_TERM && result.term != nullptr) {
                std::vector<std::string> terms;
                size_t start = 0;
                for (size_t i = 0; i < result.term_length; ++i) {
                    if (result.term[i] != '\0') continue;
                    if (i > start) terms.emplace_back(result.term + start, i - start);
                    start = i + 1;
                }
                query = Xapian::Query(Xapian::Query::OP_OR, terms.begin(), terms.end());
            } else if (status == CXAPIAN_FIELD_NOT_TERM && result.term != nullptr) {
                query = Xapian::Query(Xapian::Query::OP_AND_NOT, Xapian::Query::MatchAll,
                                      Xapian::Query(std::string(result.term, result.term_length)));
            } else if (status == CXAPIAN_FIELD_SLOT_TERM && result.term != nullptr && result.begin != nullptr) {
                query = slot_term(result.term, result.term_length, result.slot, result.begin, result.begin_length,
                                  &owner_->ranges);
            } else if (status == CXAPIAN_FIELD_VALUE_RANGE) {
                query = value_range(result.slot, result.begin, result.begin_length, result.end, result.end_length,
                                    &owner_->ranges);
            }
        } catch (...) {
            free_result(result);
            throw;
        }
        free_result(result);
        return query;
    }

    /// The range (a query matching all for no bound); a bounded one is recorded in `ranges`, if given.
    static Xapian::Query value_range(uint32_t slot, const char *begin, size_t begin_length, const char *end,
                                     size_t end_length, std::vector<cxapian::ValueRangeLeaf> *ranges) {
        auto bound = [](const char *text, size_t length) {
            return text != nullptr ? std::optional<std::string>(std::string(text, length)) : std::nullopt;
        };
        cxapian::ValueRangeLeaf range =
            cxapian::ValueRangeLeaf::make(slot, bound(begin, begin_length), bound(end, end_length));
        if (ranges != nullptr && range.bounded()) ranges->push_back(range);
        return range.leaf;
    }

    /// The term, recorded in `ranges` with the value its documents hold in `slot`.
    static Xapian::Query slot_term(const char *term, size_t term_length, uint32_t slot, const char *value,
                                   size_t value_length, std::vector<cxapian::ValueRangeLeaf> *ranges) {
        cxapian::ValueRangeLeaf leaf = cxapian::ValueRangeLeaf::term_of_value(std::string(term, term_length), slot,
                                                                              std::string(value, value_length));
        ranges->push_back(leaf);
        return leaf.leaf;
    }

  private:
    static void free_result(cxapian_field_result &result) {
        std::free(result.term);
        std::free(result.begin);
        std::free(result.end);
        std::free(result.message);
    }

  private:
    cxapian_field_mapper mapper_;
    void *context_;
    cxapian_query_parser *owner_;  // outlives the processor: the parser owns it
};

}  // namespace

extern "C" {

/* ---- queries ---- */

cxapian_query *cxapian_query_new_term(const char *term, size_t length) {
    try {
        return new cxapian_query{Xapian::Query(std::string(term, length))};
    } catch (...) {
        return nullptr;
    }
}

cxapian_query *cxapian_query_new_any_term(const char *terms, size_t length) {
    try {
        std::vector<Xapian::Query> leaves;
        size_t start = 0;
        for (size_t i = 0; i < length; ++i) {
            if (terms[i] != '\0') continue;
            if (i > start) leaves.emplace_back(std::string(terms + start, i - start));
            start = i + 1;
        }
        return new cxapian_query{Xapian::Query(Xapian::Query::OP_OR, leaves.begin(), leaves.end())};
    } catch (...) {
        return nullptr;
    }
}

cxapian_query *cxapian_query_new_match_all(void) {
    try {
        return new (std::nothrow) cxapian_query{cxapian::match_all()};
    } catch (...) {
        return nullptr;  // the query's node could not be allocated
    }
}

cxapian_query *cxapian_query_new_match_nothing(void) {
    return new (std::nothrow) cxapian_query{Xapian::Query::MatchNothing};
}

bool cxapian_query_combine(cxapian_query_op op, const cxapian_query *left, const cxapian_query *right,
                           cxapian_query **out, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    *out = nullptr;
    Xapian::Query::op xop;
    switch (op) {
        case CXAPIAN_OP_AND: xop = Xapian::Query::OP_AND; break;
        case CXAPIAN_OP_OR: xop = Xapian::Query::OP_OR; break;
        case CXAPIAN_OP_AND_NOT: xop = Xapian::Query::OP_AND_NOT; break;
        case CXAPIAN_OP_FILTER: xop = Xapian::Query::OP_FILTER; break;
        case CXAPIAN_OP_AND_MAYBE: xop = Xapian::Query::OP_AND_MAYBE; break;
        default: throw Xapian::InvalidArgumentError("unknown query operator");
    }
    auto query = std::make_unique<cxapian_query>();
    query->query = Xapian::Query(xop, left->query, right->query);
    query->ranges = left->ranges;
    query->ranges.insert(query->ranges.end(), right->ranges.begin(), right->ranges.end());
    *out = query.release();
    CXAPIAN_GUARD_END(error)
}

void cxapian_query_free(cxapian_query *query) { delete query; }

bool cxapian_query_is_empty(const cxapian_query *query) { return query->query.empty(); }

char *cxapian_query_description(const cxapian_query *query) {
    try {
        return copy_string(query->query.get_description());
    } catch (...) {
        return nullptr;
    }
}

bool cxapian_query_group_compounds(const cxapian_query *query, const char *compounds, size_t length,
                                   const char *stemming_language, const char *title_prefix, cxapian_query **out,
                                   cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    *out = nullptr;
    std::vector<std::vector<std::string>> groups;
    std::istringstream lines(std::string(compounds, length));
    for (std::string line; std::getline(lines, line);) {
        std::istringstream words(line);
        std::vector<std::string> group;
        for (std::string word; words >> word;) group.push_back(word);
        if (group.size() > 1) groups.push_back(std::move(group));
    }
    const Xapian::Stem stemmer = make_stemmer(stemming_language);
    *out = new cxapian_query{
        cxapian::group_compounds(query->query, groups, stemmer, title_prefix != nullptr ? title_prefix : ""),
        query->ranges};
    CXAPIAN_GUARD_END(error)
}

/* ---- query parser ---- */

cxapian_query_parser *cxapian_query_parser_new(void) { return new (std::nothrow) cxapian_query_parser(); }

void cxapian_query_parser_free(cxapian_query_parser *parser) { delete parser; }

bool cxapian_query_parser_set_stemmer(cxapian_query_parser *parser, const char *language,
                                      cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    parser->parser.set_stemmer(make_stemmer(language));
    CXAPIAN_GUARD_END(error)
}

void cxapian_query_parser_set_stemming_strategy(cxapian_query_parser *parser, cxapian_stem_strategy strategy) {
    try {
        parser->parser.set_stemming_strategy(static_cast<Xapian::QueryParser::stem_strategy>(strategy));
    } catch (...) {
    }
}

void cxapian_query_parser_set_default_and(cxapian_query_parser *parser, bool and_by_default) {
    try {
        parser->parser.set_default_op(and_by_default ? Xapian::Query::OP_AND : Xapian::Query::OP_OR);
    } catch (...) {
    }
}

void cxapian_query_parser_set_database(cxapian_query_parser *parser, cxapian_database *database) {
    try {
        parser->parser.set_database(database->database);
    } catch (...) {
    }
}

bool cxapian_query_parser_add_prefix(cxapian_query_parser *parser, const char *field, const char *prefix,
                                     cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    parser->parser.add_prefix(field, prefix);
    CXAPIAN_GUARD_END(error)
}

bool cxapian_query_parser_add_boolean_prefix(cxapian_query_parser *parser, const char *field, const char *prefix,
                                             bool exclusive, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    parser->parser.add_boolean_prefix(field, prefix, exclusive);
    CXAPIAN_GUARD_END(error)
}

bool cxapian_query_parser_add_boolean_mapper(cxapian_query_parser *parser, const char *field,
                                             cxapian_field_mapper mapper, void *context, bool exclusive,
                                             cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    // release() hands ownership to the parser's reference count. An empty grouping gives each filter its own group.
    auto *processor = new MappedFieldProcessor(mapper, context, parser);
    const std::string own_group;
    parser->parser.add_boolean_prefix(field, processor->release(), exclusive ? nullptr : &own_group);
    CXAPIAN_GUARD_END(error)
}

bool cxapian_query_parser_parse(cxapian_query_parser *parser, const char *text, size_t length, unsigned flags,
                                cxapian_query **out, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    *out = nullptr;
    unsigned xflags = 0;
    if (flags & CXAPIAN_QP_BOOLEAN) xflags |= Xapian::QueryParser::FLAG_BOOLEAN;
    if (flags & CXAPIAN_QP_PHRASE) xflags |= Xapian::QueryParser::FLAG_PHRASE;
    if (flags & CXAPIAN_QP_LOVEHATE) xflags |= Xapian::QueryParser::FLAG_LOVEHATE;
    if (flags & CXAPIAN_QP_BOOLEAN_ANY_CASE) xflags |= Xapian::QueryParser::FLAG_BOOLEAN_ANY_CASE;
    if (flags & CXAPIAN_QP_WILDCARD) xflags |= Xapian::QueryParser::FLAG_WILDCARD;
    if (flags & CXAPIAN_QP_PURE_NOT) xflags |= Xapian::QueryParser::FLAG_PURE_NOT;
    if (flags & CXAPIAN_QP_PARTIAL) xflags |= Xapian::QueryParser::FLAG_PARTIAL;
    if (flags & CXAPIAN_QP_SPELLING_CORRECTION) xflags |= Xapian::QueryParser::FLAG_SPELLING_CORRECTION;
    if (flags & CXAPIAN_QP_CJK_NGRAM) xflags |= Xapian::QueryParser::FLAG_CJK_NGRAM;
    parser->rejected = false;
    parser->rejection.clear();
    parser->ranges.clear();
    Xapian::Query query = parser->parser.parse_query(std::string(text, length), xflags);
    if (parser->rejected) {
        parser->rejected = false;
        throw Xapian::QueryParserError(parser->rejection);
    }
    *out = new cxapian_query{query, std::move(parser->ranges)};
    parser->ranges.clear();
    CXAPIAN_GUARD_END(error)
}

void cxapian_query_parser_set_max_expansion(cxapian_query_parser *parser, uint32_t limit, uint32_t partial_limit) {
    try {
        parser->parser.set_max_expansion(limit, Xapian::Query::WILDCARD_LIMIT_ERROR,
                                         Xapian::QueryParser::FLAG_WILDCARD);
        parser->parser.set_max_expansion(partial_limit, Xapian::Query::WILDCARD_LIMIT_MOST_FREQUENT,
                                         Xapian::QueryParser::FLAG_PARTIAL);
    } catch (...) {
    }
}

char *cxapian_query_parser_corrected_query(cxapian_query_parser *parser) {
    try {
        return copy_string(parser->parser.get_corrected_query_string());
    } catch (...) {
        return nullptr;
    }
}

bool cxapian_query_new_slot_term(const char *term, size_t term_length, uint32_t slot, const char *value,
                                 size_t value_length, cxapian_query **out, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    *out = nullptr;
    auto query = std::make_unique<cxapian_query>();
    query->query = MappedFieldProcessor::slot_term(term, term_length, slot, value, value_length, &query->ranges);
    *out = query.release();
    CXAPIAN_GUARD_END(error)
}

bool cxapian_query_new_value_range(uint32_t slot, const char *begin, size_t begin_length, const char *end,
                                   size_t end_length, cxapian_query **out, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    *out = nullptr;
    auto query = std::make_unique<cxapian_query>();
    query->query = MappedFieldProcessor::value_range(slot, begin, begin_length, end, end_length, &query->ranges);
    *out = query.release();
    CXAPIAN_GUARD_END(error)
}

}  // extern "C"
