#include "index_layout.h"

#include "query_parts.h"

#include <algorithm>

namespace cxapian {

namespace {

/// Into `resolved`, `query` with its project title terms resolved (IndexLayout::resolve_projects); false, `resolved`
/// untouched, if it has none.
bool resolve(const IndexLayout &layout, const Xapian::Database &database, const Xapian::Query &query,
             Xapian::Query &resolved) {
    using Q = Xapian::Query;
    const std::string &container_prefix = layout.container_prefix;
    const std::string &domain_prefix = layout.domain_prefix;
    switch (query.get_type()) {
        case Q::LEAF_TERM: {
            if (query.get_terms_begin() == query.get_terms_end()) return false;
            const std::string term = *query.get_terms_begin();
            if (term.compare(0, container_prefix.size(), container_prefix) != 0) return false;
            // The projects of that title (a handful): each one's domain term, from its term list.
            std::vector<std::string> domains;
            for (auto project = database.postlist_begin(term); project != database.postlist_end(term); ++project) {
                auto at = database.termlist_begin(*project);
                at.skip_to(domain_prefix);
                if (at == database.termlist_end(*project)) continue;
                const std::string domain = *at;
                if (domain.compare(0, domain_prefix.size(), domain_prefix) != 0) continue;
                if (std::find(domains.begin(), domains.end(), domain) == domains.end()) domains.push_back(domain);
            }
            if (domains.empty()) {
                resolved = Q::MatchNothing;
            } else {
                resolved = domains.size() == 1 ? Q(domains[0]) : Q(Q::OP_OR, domains.begin(), domains.end());
            }
            return true;
        }
        case Q::OP_SCALE_WEIGHT: {
            // Xapian's public API does not give the factor; a query of filters alone is scaled by 0, which its
            // description starts with ("0 * ..."). Other factors hold no filter of ours.
            if (query.get_num_subqueries() != 1 || query.get_description().compare(0, 10, "Query(0 * ") != 0) {
                return false;
            }
            Q part;
            if (!resolve(layout, database, query.get_subquery(0), part)) return false;
            resolved = Q(Q::OP_SCALE_WEIGHT, part, 0.0);
            return true;
        }
        default:
            if (!combines_subqueries(query.get_type())) return false;
            return rewrite_subqueries(
                query, [&](const Q &part, Q &out) { return resolve(layout, database, part, out); }, resolved);
    }
}

}  // namespace

Xapian::Query IndexLayout::resolve_projects(const Xapian::Database &database, const Xapian::Query &query) const {
    Xapian::Query resolved;
    if (container_prefix.empty() || domain_prefix.empty() || !resolve(*this, database, query, resolved)) return query;
    return resolved;
}

}  // namespace cxapian
