// query_parts.h — rewriting a query operator's subqueries one by one (internal to CXapian).

#ifndef CXAPIAN_QUERY_PARTS_H
#define CXAPIAN_QUERY_PARTS_H

#include <xapian.h>

#include <utility>
#include <vector>

namespace cxapian {

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
