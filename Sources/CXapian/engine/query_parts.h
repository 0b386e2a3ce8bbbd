// query_parts.h — a query operator's parts: its window, its subqueries rewritten one by one (internal to CXapian).

#ifndef CXAPIAN_ENGINE_QUERY_PARTS_H
#define CXAPIAN_ENGINE_QUERY_PARTS_H

#include <xapian.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cxapian {

/// A query matching every document, made fresh: never a copy of Xapian::Query::MatchAll, a static whose reference
/// count is not atomic, so that copies made and dropped on several threads at once corrupt it (Xapian's query.h says
/// as much) and a later copy's destructor frees it twice.
inline Xapian::Query match_all() { return Xapian::Query(std::string()); }

/// The description Xapian writes for `query`'s internals: its own without "Query(" and ")".
inline std::string inner_description(const Xapian::Query &query) {
    const std::string description = query.get_description();
    return description.size() >= 7 ? description.substr(6, description.size() - 7) : std::string();
}

/// The window of `query`, an OP_PHRASE or OP_NEAR; none if its description does not give it. Xapian's public API
/// does not give it; its description does: "(a@1 PHRASE 2 b@2)", the operator and the window after the first part's
/// own description.
inline std::optional<Xapian::termpos> phrase_window(const Xapian::Query &query) {
    using Q = Xapian::Query;
    if ((query.get_type() != Q::OP_PHRASE && query.get_type() != Q::OP_NEAR) || query.get_num_subqueries() == 0) {
        return std::nullopt;
    }
    const std::string description = inner_description(query);
    const std::string first = inner_description(query.get_subquery(0));
    const std::string name = query.get_type() == Q::OP_NEAR ? " NEAR " : " PHRASE ";
    const size_t at = 1 + first.size();
    if (description.compare(0, 1, "(") != 0 || description.compare(1, first.size(), first) != 0 ||
        description.compare(at, name.size(), name) != 0) {
        return std::nullopt;
    }
    size_t digit = at + name.size();
    uint64_t window = 0;
    for (; digit < description.size() && description[digit] >= '0' && description[digit] <= '9'; ++digit) {
        window = window * 10 + uint64_t(description[digit] - '0');
        if (window > std::numeric_limits<Xapian::termpos>::max()) return std::nullopt;
    }
    if (digit == at + name.size() || description.compare(digit, 1, " ") != 0) return std::nullopt;
    return static_cast<Xapian::termpos>(window);
}

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
