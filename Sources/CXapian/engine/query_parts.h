// query_parts.h — rewriting a query operator's subqueries one by one (internal to CXapian).

#ifndef CXAPIAN_ENGINE_QUERY_PARTS_H
#define CXAPIAN_ENGINE_QUERY_PARTS_H

#include <xapian.h>

#include <string>
#include <utility>
#include <vector>

namespace cxapian {

/// A query matching every document, made fresh: never a copy of Xapian::Query::MatchAll, a static whose reference
/// count is not atomic, so that copies made and dropped on several threads at once corrupt it (Xapian's query.h says
/// as much) and a later copy's destructor frees it twice.
inline Xapian::Query match_all() { return Xapian::Query(std::string()); }

/// Whether `op` combines subqueries that each stand alone (AND, OR, AND_NOT, XOR, AND_MAYBE, FILTER, SYNONYM, MAX),
/// so that a rewrite can rewrite each and combine them again with `op`; false for leaves and for the operators with
/// parameters of their own (phrases, NEAR, scaling, value ranges, wildcards).
inline bool combines_subqueries(Xapian::Query::op op) {
    using Q = Xapian::Query;
    switch (op) {
        case Q::OP_AND:
        case Q::OP_OR:
        case Q::OP_AND_NOT:
        case Q::OP_XOR:
        case Q::OP_AND_MAYBE:
        case Q::OP_FILTER:
        case Q::OP_SYNONYM:
        case Q::OP_MAX:
            return true;
        default:
            return false;
    }
}

/// Into `rewritten`, `query` (an operator whose subqueries each stand alone, such as AND or OR) with each subquery
/// that `rewrite(part, out)` rewrites into `out` replaced; false, `rewritten` untouched, if it rewrote none.
template <typename Rewrite>
bool rewrite_subqueries(const Xapian::Query &query, Rewrite &&rewrite, Xapian::Query &rewritten) {
    const size_t count = query.get_num_subqueries();
    std::vector<Xapian::Query> parts;
    parts.reserve(count);
    bool changed = false;
    for (size_t i = 0; i < count; ++i) {
        Xapian::Query part = query.get_subquery(i);
        Xapian::Query out;
        if (rewrite(part, out)) {
            part = std::move(out);
            changed = true;
        }
        parts.push_back(std::move(part));
    }
    if (changed) rewritten = Xapian::Query(query.get_type(), parts.begin(), parts.end());
    return changed;
}

}  // namespace cxapian

#endif
