// check_positions.cpp — check_positions (positions.h): each OP_PHRASE and OP_NEAR of a query about to be matched
// replaced by a PhraseSource, which checks the index's packed positions. Called only from inside the C API's guarded
// entry points, so exceptions thrown here are caught there.

#include "positions.h"
#include "query_parts.h"

#include <cstdlib>
#include <limits>

namespace cxapian {

namespace {

using Q = Xapian::Query;

bool is_positional(Q::op op) { return op == Q::OP_PHRASE || op == Q::OP_NEAR; }

/// The terms a phrase's part may be, each leaf once (a term named twice twice): a term, or an OR or SYNONYM of them
/// (how Xapian reads a part's positions: the union of its terms', OrPosPostList); false for anything else.
bool part_terms(const Q &part, std::vector<std::string> &terms) {
    switch (part.get_type()) {
        case Q::LEAF_TERM: {
            const auto term = part.get_terms_begin();
            if (term == part.get_terms_end() || (*term).empty()) return false;
            terms.push_back(*term);  // repeats too: Xapian's estimate counts each leaf
            return true;
        }
        case Q::OP_OR:
        case Q::OP_SYNONYM:
            for (size_t i = 0, count = part.get_num_subqueries(); i < count; ++i) {
                if (!part_terms(part.get_subquery(i), terms)) return false;
            }
            return true;
        default:
            return false;
    }
}

/// A scaled query's factor, which Xapian's public API does not give either: its description starts with it, written
/// with 20 significant digits (enough to read the same double back).
double factor_of(const Q &query) {
    const std::string description = inner_description(query);
    const char *start = description.c_str();
    char *end = nullptr;
    const double factor = std::strtod(start, &end);
    if (end == start || std::string(end).compare(0, 3, " * ") != 0) {
        throw Xapian::UnimplementedError("cannot read the factor of " + query.get_description());
    }
    return factor;
}

/// The PhraseSource for the phrase or NEAR `query`; where it is `weighed`, a filter ANDed with its parts.
Q checked(const Q &query, const PositionsLayout &layout, bool weighed) {
    const size_t count = query.get_num_subqueries();
    std::vector<std::vector<std::string>> parts(count);
    std::vector<Q> subqueries;
    for (size_t i = 0; i < count; ++i) {
        subqueries.push_back(query.get_subquery(i));
        if (!part_terms(subqueries.back(), parts[i])) {
            throw Xapian::UnimplementedError("a phrase's part must be a word, not " +
                                             subqueries.back().get_description());
        }
    }
    const auto read = phrase_window(query);
    if (!read) throw Xapian::UnimplementedError("cannot read the window of " + query.get_description());
    const Xapian::termpos window = *read;
    const Proximity kind = query.get_type() == Q::OP_NEAR ? Proximity::near
                           : window == count               ? Proximity::exact
                                                           : Proximity::ordered;
    auto *source = new PhraseSource(std::move(parts), kind, window, layout, weighed);
    const Q phrase(source->release());
    if (!weighed) return phrase;
    // What the operator weighed: its parts' weights (Xapian's phrase postlists weigh as the AND beneath them). An AND
    // under an AND is one AND to Xapian: the parts join the one around the phrase, as Xapian's own phrase's do.
    subqueries.push_back(phrase);
    return Q(Q::OP_AND, subqueries.begin(), subqueries.end());
}

/// Into `out`, `query` with its phrases checked (check_positions); false, `out` untouched, if it holds none.
bool check(const Q &query, const PositionsLayout &layout, Q &out) {
    const Q::op type = query.get_type();
    if (is_positional(type)) {
        out = checked(query, layout, true);
        return true;
    }
    if (type == Q::OP_SCALE_WEIGHT && query.get_num_subqueries() == 1) {
        const Q part = query.get_subquery(0);
        const double factor = factor_of(query);
        if (factor == 0 && is_positional(part.get_type())) {
            out = checked(part, layout, false);  // weighed by nothing: the source weighs nothing
            return true;
        }
        Q inner;
        if (!check(part, layout, inner)) return false;
        out = Q(Q::OP_SCALE_WEIGHT, inner, factor);
        return true;
    }
    if (!combines_subqueries(type)) return false;
    return rewrite_subqueries(query, [&](const Q &part, Q &rewritten) { return check(part, layout, rewritten); },
                              out);
}

}  // namespace

bool holds_positional(const Xapian::Query &query) {
    if (is_positional(query.get_type())) return true;
    for (size_t i = 0, count = query.get_num_subqueries(); i < count; ++i) {
        if (holds_positional(query.get_subquery(i))) return true;
    }
    return false;
}

Xapian::Query check_positions(const Xapian::Query &query, const PositionsLayout &layout) {
    if (layout.empty()) return query;
    Q out;
    const Q result = check(query, layout, out) ? out : query;
    // Left as Xapian's, a phrase would be matched as an AND of its words in an index without Xapian's positions.
    if (holds_positional(result)) {
        throw Xapian::UnimplementedError("a phrase inside " + result.get_description() + " cannot be checked");
    }
    return result;
}

}  // namespace cxapian
