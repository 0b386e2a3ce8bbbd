// compounds.cpp — group_compounds and phrases_as_written. Called only from inside the C API's guarded entry points, so exceptions thrown
// here are caught there.

#include "compounds.h"
#include "query_parts.h"
#include "term_classes.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace cxapian {

namespace {

/// The detail term the query parser makes of a lowercase word with STEM_SOME: "Z" + its stem if it starts with a
/// letter, else the word itself.
std::string parser_term(const std::string &word, const Xapian::Stem &stemmer) {
    Xapian::Utf8Iterator first(word);
    if (first == Xapian::Utf8Iterator()) return word;
    switch (Xapian::Unicode::get_category(*first)) {
        case Xapian::Unicode::LOWERCASE_LETTER:
        case Xapian::Unicode::TITLECASE_LETTER:
        case Xapian::Unicode::MODIFIER_LETTER:
        case Xapian::Unicode::OTHER_LETTER:
            return "Z" + stemmer(word);
        default:
            return word;
    }
}

/// Whether `query` is the pair (detail term OR its title twin) the parser makes of a word of the default field,
/// for a detail term in `terms`.
bool is_pair_of(const Xapian::Query &query, const Classifier &classifier, const std::vector<std::string> &terms) {
    if (query.get_type() != Xapian::Query::OP_OR || query.get_num_subqueries() != 2) return false;
    std::string detail, title;
    if (!leaf_term(query.get_subquery(0), detail) || !leaf_term(query.get_subquery(1), title)) return false;
    if (!classifier.is_detail(detail) || title != classifier.twin(detail)) return false;
    return std::find(terms.begin(), terms.end(), detail) != terms.end();
}

class CompoundGrouper {
  public:
    CompoundGrouper(std::vector<std::vector<std::string>> compounds, const Classifier &classifier)
        : compounds_(std::move(compounds)), classifier_(classifier) {}

    Xapian::Query group(const Xapian::Query &query) {
        using Q = Xapian::Query;
        size_t count = query.get_num_subqueries();
        // Not a leaf, nor an operator with parameters of its own (phrases, scaling), nor one whose subqueries are one
        // word's forms (SYNONYM) or a compound already grouped (MAX).
        const Q::op type = query.get_type();
        if (!combines_subqueries(type) || type == Q::OP_SYNONYM || type == Q::OP_MAX) return query;
        if (count == 0) return query;
        std::vector<Q> children;
        children.reserve(count);
        for (size_t i = 0; i < count; ++i) children.push_back(query.get_subquery(i));
        if (query.get_type() == Q::OP_OR) {
            for (const auto &terms : compounds_) group_one(children, terms);
        }
        for (auto &child : children) {
            if (child.get_type() != Q::OP_MAX) child = group(child);
        }
        return Q(query.get_type(), children.begin(), children.end());
    }

  private:
    /// Among an OR's `children`: the leaves of the word (`terms[0]`) and its title twin, and either the leaves of
    /// its parts (`terms[1...]`, with twins; the OR form) or one AND of their pairs (the AND form). Found: they
    /// become one OP_MAX child.
    void group_one(std::vector<Xapian::Query> &children, const std::vector<std::string> &terms) {
        using Q = Xapian::Query;
        if (terms.size() < 2) return;
        const std::string &word = terms[0];
        const std::vector<std::string> parts(terms.begin() + 1, terms.end());
        long word_at = -1, twin_at = -1;
        std::vector<size_t> part_leaves;
        long and_at = -1;
        for (size_t i = 0; i < children.size(); ++i) {
            std::string term;
            if (leaf_term(children[i], term)) {
                if (term == word && word_at < 0) {
                    word_at = static_cast<long>(i);
                } else if (term == classifier_.twin(word) && twin_at < 0) {
                    twin_at = static_cast<long>(i);
                } else if (classifier_.is_detail(term) &&
                           std::find(parts.begin(), parts.end(), term) != parts.end()) {
                    part_leaves.push_back(i);
                } else if (classifier_.is_title(term)) {
                    for (const auto &part : parts) {
                        if (term == classifier_.twin(part)) {
                            part_leaves.push_back(i);
                            break;
                        }
                    }
                }
            } else if (is_pair_of(children[i], classifier_, parts)) {
                part_leaves.push_back(i);
            } else if (and_at < 0 && children[i].get_type() == Q::OP_AND && all_pairs_of(children[i], parts)) {
                and_at = static_cast<long>(i);
            }
        }
        if (word_at < 0 || twin_at < 0) return;
        Q whole(Q::OP_OR, children[word_at], children[twin_at]);
        std::vector<size_t> taken{static_cast<size_t>(word_at), static_cast<size_t>(twin_at)};
        Q rest;
        if (and_at >= 0) {
            rest = children[and_at];
            taken.push_back(static_cast<size_t>(and_at));
        } else if (covers(children, part_leaves, parts)) {
            std::vector<Q> leaves;
            for (size_t i : part_leaves) leaves.push_back(children[i]);
            rest = Q(Q::OP_OR, leaves.begin(), leaves.end());
            taken.insert(taken.end(), part_leaves.begin(), part_leaves.end());
        } else {
            return;
        }
        Q grouped(Q::OP_MAX, whole, rest);
        std::vector<Q> kept;
        for (size_t i = 0; i < children.size(); ++i) {
            if (std::find(taken.begin(), taken.end(), i) == taken.end()) kept.push_back(children[i]);
        }
        kept.push_back(grouped);
        children = std::move(kept);
    }

    /// Whether `query` (an AND) is made only of word pairs of `parts`, and holds each of them.
    bool all_pairs_of(const Xapian::Query &query, const std::vector<std::string> &parts) const {
        std::vector<std::string> seen;
        for (size_t i = 0, count = query.get_num_subqueries(); i < count; ++i) {
            Xapian::Query pair = query.get_subquery(i);
            if (!is_pair_of(pair, classifier_, parts)) return false;
            std::string detail;
            leaf_term(pair.get_subquery(0), detail);
            seen.push_back(detail);
        }
        for (const auto &part : parts) {
            if (std::find(seen.begin(), seen.end(), part) == seen.end()) return false;
        }
        return true;
    }

    /// Whether the leaves and pairs at `at` hold every part and its twin.
    bool covers(const std::vector<Xapian::Query> &children, const std::vector<size_t> &at,
                const std::vector<std::string> &parts) const {
        std::vector<std::string> terms;
        for (size_t i : at) {
            std::string term;
            if (leaf_term(children[i], term)) {
                terms.push_back(term);
                continue;
            }
            for (size_t j = 0; j < children[i].get_num_subqueries(); ++j) {
                if (leaf_term(children[i].get_subquery(j), term)) terms.push_back(term);
            }
        }
        for (const auto &part : parts) {
            bool detail = std::find(terms.begin(), terms.end(), part) != terms.end();
            bool title = std::find(terms.begin(), terms.end(), classifier_.twin(part)) != terms.end();
            if (!detail || !title) return false;
        }
        return true;
    }

    std::vector<std::vector<std::string>> compounds_;
    const Classifier &classifier_;
};

/// A term's letters and digits, without its prefix (the capitals Xapian's prefixes are made of).
std::string spelled(const std::string &term) {
    size_t start = 0;
    while (start < term.size() && term[start] >= 'A' && term[start] <= 'Z') ++start;
    std::string letters;
    for (size_t i = start; i < term.size(); ++i) {
        const unsigned char byte = static_cast<unsigned char>(term[i]);
        if (byte >= 0x80 || std::isalnum(byte)) letters += term[i];
    }
    return letters;
}

/// `terms` without the runs of two or more terms that spell out the term before them; whether any went.
bool drop_parts(std::vector<std::string> &terms) {
    std::vector<std::string> kept;
    bool dropped = false;
    for (size_t i = 0; i < terms.size(); ++i) {
        kept.push_back(terms[i]);
        const std::string word = spelled(terms[i]);
        std::string parts;
        size_t end = i + 1;
        while (end < terms.size() && parts.size() < word.size()) {
            parts += spelled(terms[end]);
            ++end;
            if (word.compare(0, parts.size(), parts) != 0) break;
        }
        if (end - i - 1 >= 2 && parts == word) {
            i = end - 1;
            dropped = true;
        }
    }
    if (dropped) terms = std::move(kept);
    return dropped;
}

/// Into `written`, `query` with each tight phrase of terms that had parts to drop written without them; false,
/// `written` untouched, if there was none. Looks into the operators whose subqueries stand alone, where the parser
/// puts phrases.
bool write_phrases(const Xapian::Query &query, Xapian::Query &written) {
    if (query.get_type() == Xapian::Query::OP_PHRASE) {
        std::vector<std::string> terms;
        for (size_t i = 0; i < query.get_num_subqueries(); ++i) {
            std::string term;
            if (!leaf_term(query.get_subquery(i), term)) return false;
            terms.push_back(term);
        }
        if (!drop_parts(terms)) return false;
        written = Xapian::Query(Xapian::Query::OP_PHRASE, terms.begin(), terms.end(), terms.size());
        return true;
    }
    if (!combines_subqueries(query.get_type())) return false;
    return rewrite_subqueries(query, write_phrases, written);
}

}  // namespace

Xapian::Query phrases_as_written(const Xapian::Query &query) {
    Xapian::Query written;
    return write_phrases(query, written) ? written : query;
}

Xapian::Query group_compounds(const Xapian::Query &query, const std::vector<std::vector<std::string>> &compounds,
                              const Xapian::Stem &stemmer, const std::string &title_prefix) {
    Classifier classifier{title_prefix};
    std::vector<std::vector<std::string>> terms;
    for (const auto &words : compounds) {
        std::vector<std::string> group;
        for (const auto &word : words) {
            std::string term = parser_term(word, stemmer);
            if (std::find(group.begin(), group.end(), term) == group.end()) group.push_back(term);
        }
        if (group.size() > 1) terms.push_back(std::move(group));
    }
    if (terms.empty()) return query;
    CompoundGrouper grouper(std::move(terms), classifier);
    return grouper.group(query);
}

}  // namespace cxapian
