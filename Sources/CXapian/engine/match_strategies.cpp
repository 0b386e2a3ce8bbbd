// match_strategies.cpp — a page in relevance order, a rescored window, a sort by value. Called only from inside the C
// API's guarded entry points, so exceptions thrown here are caught there.

#include "match_strategies.h"

#include "sources/deadline.h"
#include "sources/docid_list.h"
#include "sources/phrase_bonus.h"
#include "sources/title_match.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <vector>

namespace cxapian {

namespace {

/// Sets the order `options` asks for on `enquire` (relevance, value keys, docids); `keys` must outlive the match.
/// `table`, if given, gives the one key's values (a TableKeyMaker of its slot), read instead of the slot.
void set_order(Xapian::Enquire &enquire, const MatchOptions &options, Xapian::MultiValueKeyMaker &keys,
               Xapian::KeyMaker *table = nullptr) {
    // Docids are the last tie-break: free, as Xapian compares them anyway, where a value key costs a value read
    // for every candidate that ties with the page's last hit (most of them when BM25 gives equal scores).
    enquire.set_docid_order(options.docids_descending ? Xapian::Enquire::DESCENDING : Xapian::Enquire::ASCENDING);
    if (options.sort_keys.size() == 1 && table != nullptr) {
        // The same comparison of the same bytes as a sort by the slot: Xapian compares keys and values alike.
        const bool descending = options.sort_keys[0].descending;
        if (options.by_relevance_first) {
            enquire.set_sort_by_relevance_then_key(table, descending);
        } else {
            enquire.set_sort_by_key_then_relevance(table, descending);
        }
    } else if (options.sort_keys.size() == 1) {
        // One key: Xapian reads the slot itself, without a key maker building a key string per candidate.
        const auto &key = options.sort_keys[0];
        if (options.by_relevance_first) {
            enquire.set_sort_by_relevance_then_value(key.slot, key.descending);
        } else {
            enquire.set_sort_by_value_then_relevance(key.slot, key.descending);
        }
    } else if (options.sort_keys.size() > 1) {
        for (size_t i = 0; i < options.sort_keys.size(); ++i) {
            keys.add_value(options.sort_keys[i].slot, options.sort_keys[i].descending);
        }
        if (options.by_relevance_first) {
            enquire.set_sort_by_relevance_then_key(&keys, false);
        } else {
            enquire.set_sort_by_key_then_relevance(&keys, false);
        }
    }
}

/// Takes `counted`'s match counts as the search's; false if a match stopped at the deadline, when the matches
/// examined are a lower bound, not the total.
bool take_counts(const Xapian::Database &database, const Xapian::MSet &counted, MatchResult &result) {
    result.estimated = counted.get_matches_estimated();
    result.lower_bound = counted.get_matches_lower_bound();
    result.upper_bound = counted.get_matches_upper_bound();
    if (!result.stopped->load()) return true;
    result.upper_bound = std::max(result.upper_bound, database.get_doccount());
    return false;
}

/// The page of a sort by one value slot, from the slot's table (SlotValues::by_value()): the documents in
/// the sort's order, a batch at a time, each batch filtered by the query, until the page is full; the counts from a
/// match that weighs nothing and stops where a relevance search's would (check_at_least). A sort in the match reads
/// the key of every match and compares it; a walk of the order stops as soon as the page is full, which for a query
/// matching a good share of the documents is near the start.
///
/// False, nothing done but the counts, where the walk would check more documents than the query matches (needed ×
/// documents / matches against matches): a sort in the match costs less there; and when the table has no order yet
/// (SlotValues::by_value_if_asked_again()).
bool page_by_table(const Xapian::Database &database, const Xapian::Query &query, const MatchOptions &options,
                   const SlotValues &table, MatchResult &result, std::vector<Xapian::docid> &page) {
    const Xapian::MSet counted = weightless(database, query, result).get_mset(0, 0, options.check_at_least);
    const uint64_t matches = counted.get_matches_estimated();
    const uint64_t documents = table.docid_limit();
    const uint64_t needed = uint64_t(options.first) + options.max_items;
    if (double(matches) * double(matches) < 4.0 * double(needed) * double(documents)) return false;
    const std::vector<Xapian::docid> *ordered = table.by_value_if_asked_again();
    if (ordered == nullptr) return false;
    result.mset = counted;
    take_counts(database, counted, result);

    // The order walked: runs of equal values in the sort's direction, each run's docids in the tie order (Xapian's
    // sort by value, ties by docid).
    const std::vector<Xapian::docid> &order = *ordered;
    const bool descending = options.sort_keys[0].descending;
    const bool docids_descending = options.docids_descending;
    size_t low = 0, high = order.size();  // not walked yet: order[low, high)
    size_t run_begin = 0, run_end = 0, in_run = 0;
    auto next = [&](Xapian::docid &did) {
        if (in_run == run_end - run_begin) {
            if (low == high) return false;
            in_run = 0;
            if (descending) {
                const std::string_view value = table.value(order[high - 1]);
                run_end = high;
                while (high > low && table.value(order[high - 1]) == value) --high;
                run_begin = high;
            } else {
                const std::string_view value = table.value(order[low]);
                run_begin = low;
                while (low < high && table.value(order[low]) == value) ++low;
                run_end = low;
            }
        }
        did = docids_descending ? order[run_end - 1 - in_run] : order[run_begin + in_run];
        ++in_run;
        return true;
    };
    uint64_t position = 0;  // matches met in the order
    // About twice the documents a page needs at the matches' share of the documents, four times more each round.
    const double expected = 2.0 * double(needed) * double(documents) / double(std::max<uint64_t>(matches, 1));
    size_t batch_size = size_t(std::min(std::max(expected, 64.0), double(order.size())));
    std::vector<Xapian::docid> batch;
    while (position < needed && !result.stopped->load()) {
        batch.clear();
        for (Xapian::docid did; batch.size() < batch_size && next(did);) batch.push_back(did);
        if (batch.empty()) break;
        std::vector<Xapian::docid> sorted = batch;
        std::sort(sorted.begin(), sorted.end());
        auto *list = new DocidListSource(std::move(sorted));
        Xapian::Enquire filter(database);
        filter.set_query(until_deadline(Xapian::Query(Xapian::Query::OP_FILTER, query, Xapian::Query(list->release())),
                                        result));
        filter.set_weighting_scheme(Xapian::BoolWeight());
        filter.set_docid_order(Xapian::Enquire::ASCENDING);
        const Xapian::MSet found = filter.get_mset(0, static_cast<Xapian::doccount>(batch.size()));
        std::vector<Xapian::docid> matched;
        matched.reserve(found.size());
        for (auto hit = found.begin(); hit != found.end(); ++hit) matched.push_back(*hit);
        for (const Xapian::docid did : batch) {
            if (!std::binary_search(matched.begin(), matched.end(), did)) continue;
            if (position >= options.first) page.push_back(did);
            if (++position == needed) break;
        }
        batch_size = std::min(batch_size * 4, order.size());
    }
    return true;
}

}  // namespace

bool walks_in_one_pass(const Xapian::Query &query) {
    switch (query.get_type()) {
        case Xapian::Query::LEAF_TERM:
        case Xapian::Query::LEAF_MATCH_ALL:
            return true;
        case Xapian::Query::OP_AND_MAYBE:
        case Xapian::Query::OP_SCALE_WEIGHT:
            return walks_in_one_pass(query.get_subquery(0));
        case Xapian::Query::OP_OR:
        case Xapian::Query::OP_SYNONYM:
        case Xapian::Query::OP_MAX:
            for (size_t i = 0; i < query.get_num_subqueries(); ++i) {
                if (!walks_in_one_pass(query.get_subquery(i))) return false;
            }
            return true;
        default:
            return false;
    }
}

bool weighs(const Xapian::Query &query) {
    using Q = Xapian::Query;
    const size_t count = query.get_num_subqueries();
    switch (query.get_type()) {
        case Q::LEAF_TERM:
            return !(*query.get_unique_terms_begin()).empty();
        case Q::OP_FILTER:
        case Q::OP_AND_NOT:
            return count > 0 && weighs(query.get_subquery(0));
        case Q::OP_AND:
        case Q::OP_OR:
        case Q::OP_AND_MAYBE:
        case Q::OP_XOR:
        case Q::OP_MAX:
        case Q::OP_SYNONYM:
        case Q::OP_ELITE_SET:
        case Q::OP_PHRASE:
        case Q::OP_NEAR:
            for (size_t i = 0; i < count; ++i) {
                if (weighs(query.get_subquery(i))) return true;
            }
            return false;
        default:
            return false;
    }
}

bool ends_with(const Xapian::Query &query, const std::vector<const void *> &sources) {
    using Q = Xapian::Query;
    const size_t count = query.get_num_subqueries();
    auto part = [&](size_t i) { return ends_with(query.get_subquery(i), sources); };
    switch (query.get_type()) {
        case Q::LEAF_POSTING_SOURCE:
            return std::binary_search(sources.begin(), sources.end(), static_cast<const void *>(query.internal.get()));
        case Q::OP_AND:
        case Q::OP_PHRASE:
        case Q::OP_NEAR:
            for (size_t i = 0; i < count; ++i) {
                if (part(i)) return true;
            }
            return false;
        case Q::OP_FILTER:
        case Q::OP_AND_NOT:
        case Q::OP_AND_MAYBE:
        case Q::OP_SCALE_WEIGHT:
            return count > 0 && part(0);
        case Q::OP_OR:
        case Q::OP_XOR:
        case Q::OP_MAX:
        case Q::OP_SYNONYM:
        case Q::OP_ELITE_SET:
            for (size_t i = 0; i < count; ++i) {
                if (!part(i)) return false;
            }
            return count > 0;
        default:
            return false;
    }
}

Xapian::Query until_deadline(const Xapian::Query &query, const MatchResult &result) {
    // A filter that holds every document costs a step of the AND at every candidate (docs/performance.md, "The
    // server's request in instructions"). A walk whose sources ask the clock themselves ends without it.
    if (result.clock == nullptr || ends_with(query, result.clocked_sources)) return query;
    auto *source = new DeadlineSource(result.clock);
    return Xapian::Query(Xapian::Query::OP_FILTER, query, Xapian::Query(source->release()));
}

Xapian::Enquire weightless(const Xapian::Database &database, const Xapian::Query &query, const MatchResult &result) {
    Xapian::Enquire enquire(database);
    enquire.set_query(until_deadline(query, result));
    enquire.set_weighting_scheme(Xapian::BoolWeight());
    enquire.set_docid_order(Xapian::Enquire::DONT_CARE);
    return enquire;
}

namespace {

/// The same key for every document: relevance then this key orders as relevance alone does (see match_page()).
class SameKey : public Xapian::KeyMaker {
  public:
    std::string operator()(const Xapian::Document &) const override { return std::string(); }
};

}  // namespace

void match_page(const Xapian::Database &database, const Xapian::Query &query, const Xapian::Weight &weight,
                const MatchOptions &options, MatchResult &result, Xapian::KeyMaker *table, bool count_apart,
                bool weighted) {
    Xapian::Enquire enquire(database);
    enquire.set_query(until_deadline(query, result));
    enquire.set_weighting_scheme(weight);
    Xapian::MultiValueKeyMaker keys;  // the enquire points at it until get_mset
    set_order(enquire, options, keys, table);
    if (options.collapse) enquire.set_collapse_key(options.collapse_slot, 1);
    // A multi-database's facets are counted in each of its parts beforehand (match()).
    const bool spied = result.shards == 1 && !result.facets.empty();
    if (spied) {
        for (auto &facet : result.facets) enquire.add_matchspy(facet.spy.get());
    }
    // Until it has seen check_at_least matches, Xapian's matcher weighs every candidate and passes it through its
    // heap of the page (a copy of an item with two strings, a push and a pop), whatever its weight: it raises the
    // weight a candidate must reach only from then on. For a query whose walk reads each list once (a word, words
    // ORed: count_apart), that is most of the match: the page is then matched on its own, pruned as soon as it is
    // full (an OR decays to AND_MAYBE), and the matches are counted up to check_at_least by a second walk that
    // weighs nothing (BoolWeight: no weight read, no heap). A conjunction's walk (skipping one list to another's
    // documents) costs more than the weighing, and is walked once. The page is the same (pruning never drops a
    // candidate that could enter it); a count past check_at_least is the counting walk's estimate. Facets and
    // collapsing count in the weighted match.
    const Xapian::doccount page_end = options.first + options.max_items;
    count_apart = count_apart && !spied && !options.collapse && options.check_at_least > page_end;
    const Xapian::doccount check_at_least = count_apart ? page_end : options.check_at_least;
    // Ordered by relevance, Xapian 1.4's matcher compares a candidate with the page's last hit only when it sorts by
    // a key too: by relevance alone, every candidate until check_at_least goes through the page's heap (about a
    // thousand instructions each). By relevance then a key that is the same for every document, the order is the
    // same (weight, then docid, as msetcmp_by_relevance: the "reverse" flag keeps its treatment of the docid 0 it
    // starts from), and a candidate below the page's last hit is only counted. Not for a query that weighs nothing:
    // by relevance alone Xapian stops such a match at check_at_least, where a key would make it count every match.
    SameKey same_key;  // the enquire points at it until get_mset
    if (weighted && options.sort_keys.size() == 0 && !options.collapse && check_at_least > page_end) {
        enquire.set_sort_by_relevance_then_key(&same_key, true);
    }
    result.mset = enquire.get_mset(options.first, options.max_items, check_at_least);
    enquire.clear_matchspies();
    result.page_first = 0;
    result.page_size = result.mset.size();
    if (!take_counts(database, result.mset, result)) {
        // Stopped: not counted again below. A page matched alone estimates past what it examined (it counted only
        // up to the page); what it examined is all that is known.
        if (count_apart) result.estimated = result.lower_bound;
        return;
    }
    if (count_apart && result.lower_bound != result.upper_bound) {
        take_counts(database, weightless(database, query, result).get_mset(0, 0, options.check_at_least), result);
        return;
    }
    // Collapsing, Xapian counts distinct keys only among the matches it returns: past the page the counts stay
    // estimates, however many it examined. Up to check_at_least matches (10,000 at most: facets examine every
    // match, but a list of all is not worth an exact total), they are counted in a second pass that weighs
    // nothing (Xapian's BoolWeight: a walk of the posting lists), so the total is exact there as it is without
    // collapsing.
    const Xapian::doccount exact_up_to = std::min<Xapian::doccount>(options.check_at_least, 10000);
    if (options.collapse && result.lower_bound != result.upper_bound && result.lower_bound <= exact_up_to) {
        Xapian::Enquire counter = weightless(database, query, result);
        counter.set_collapse_key(options.collapse_slot, 1);
        const Xapian::doccount count = counter.get_mset(0, exact_up_to + 1).size();
        if (count <= exact_up_to) result.estimated = result.lower_bound = result.upper_bound = count;
    }
}

void match_rescored(const Xapian::Database &database, const FieldedQuery &fielded, const FieldedRanking &ranking,
                    const Xapian::Weight &weight, const MatchOptions &options, Xapian::doccount window,
                    MatchResult &result, bool count_apart, bool weighted) {
    MatchOptions first = options;
    first.first = 0;
    first.max_items = window;
    first.check_at_least = std::max(options.check_at_least, window);
    match_page(database, fielded.base, weight, first, result, nullptr, count_apart, weighted);
    if (result.clock != nullptr) result.clock->lift();
    // The window in docid order, each with its first match's weight.
    std::vector<std::pair<Xapian::docid, double>> base;
    base.reserve(result.mset.size());
    for (auto hit = result.mset.begin(); hit != result.mset.end(); ++hit) base.emplace_back(*hit, hit.get_weight());
    std::sort(base.begin(), base.end());
    std::vector<Xapian::docid> candidates;
    candidates.reserve(base.size());
    for (const auto &hit : base) candidates.push_back(hit.first);
    std::vector<Xapian::docid> phrased;
    std::vector<double> phrase_weights;
    const bool phrase_weighed = !fielded.bonus_phrases.empty();
    if (phrase_weighed) {
        weigh_phrase_bonus(database, fielded.bonus_phrases, candidates, ranking, phrased, phrase_weights);
    }
    if (phrase_weighed && options.sort_keys.size() == 0) {
        // Ranked here: the first match's weights plus the bonus and the title similarity, in the matcher's order
        // (weight, then docid), summed as the whole query's AND_MAYBEs sum them.
        const std::vector<double> title =
            weigh_title_match(database, fielded.title_terms, fielded.title_idfs, ranking, candidates);
        result.ranked.clear();
        size_t p = 0;
        for (size_t d = 0; d < base.size(); ++d) {
            double score = base[d].second;
            if (p < phrased.size() && phrased[p] == candidates[d]) score += phrase_weights[p++];
            result.ranked.emplace_back(candidates[d], score + title[d]);
        }
        // A total order (docids are unique), so the plain sort gives the matcher's order.
        const bool descending = options.docids_descending;
        std::sort(result.ranked.begin(), result.ranked.end(), [descending](const auto &a, const auto &b) {
            if (a.second != b.second) return a.second > b.second;
            return descending ? a.first > b.first : a.first < b.first;
        });
        const auto size = static_cast<Xapian::doccount>(result.ranked.size());
        result.page_first = std::min(options.first, size);
        result.page_size = std::min<Xapian::doccount>(options.max_items, size - result.page_first);
        return;
    }
    FieldedQuery extras = fielded;
    if (phrase_weighed) {
        extras.bonus = phrased.empty() ? Xapian::Query()
                                       : Xapian::Query((new DocidListSource(std::move(phrased),
                                                                                     std::move(phrase_weights)))
                                                           ->release());
    }
    auto *list = new DocidListSource(std::move(candidates));
    Xapian::Query rescored(Xapian::Query::OP_FILTER, extras.whole(), Xapian::Query(list->release()));
    Xapian::Enquire enquire(database);
    enquire.set_query(rescored);
    enquire.set_weighting_scheme(weight);
    Xapian::MultiValueKeyMaker keys;
    set_order(enquire, options, keys);
    // The whole window at once, then the page cut from it: the matcher prunes with the weight a page must reach,
    // and with Xapian's optional parts (the bonus) pruned that weight changes scores, so pages asked for one by
    // one would not join up.
    result.mset = enquire.get_mset(0, window);
    result.page_first = std::min(options.first, result.mset.size());
    result.page_size = std::min<Xapian::doccount>(options.max_items, result.mset.size() - result.page_first);
}

void match_by_value(const Xapian::Database &database, const Xapian::Query &parsed, const FieldedQuery &fielded,
                    const Xapian::Weight &weight, const MatchOptions &options, MatchResult &result,
                    std::shared_ptr<const SlotValues> table) {
    std::vector<Xapian::docid> page;
    // Facets count every match, which the walk of the order does not see.
    const bool from_table = table && options.sort_keys.size() == 1 && !options.by_relevance_first
                            && result.facets.empty() && page_by_table(database, parsed, options, *table, result, page);
    if (!from_table) {
        std::unique_ptr<TableKeyMaker> keys;
        if (table) keys = std::make_unique<TableKeyMaker>(std::move(table));
        match_page(database, parsed, Xapian::BoolWeight(), options, result, keys.get());
        page.reserve(result.page_size);
        for (Xapian::doccount i = 0; i < result.page_size; ++i) page.push_back(*result.mset[result.page_first + i]);
    }
    std::vector<Xapian::docid> sorted = page;
    std::sort(sorted.begin(), sorted.end());
    std::map<Xapian::docid, double> scores;
    if (result.clock != nullptr) result.clock->lift();
    if (!sorted.empty()) {
        auto *list = new DocidListSource(std::move(sorted));
        Xapian::Enquire enquire(database);
        // The page's documents, each weighed by the whole query where it matches (all of them do): an AND_MAYBE moves
        // the query to each document (skip_to), as a match in relevance order does. Filtered to them instead
        // (OP_FILTER), Xapian 1.4 checks an OR's branches at each document without their phrases' positions, and gave
        // a document holding "cat dog" in its title and "bee … ant" in its detail the weight of `"ant bee"` too.
        enquire.set_query(Xapian::Query(Xapian::Query::OP_AND_MAYBE, Xapian::Query(list->release()), fielded.whole()));
        enquire.set_weighting_scheme(weight);
        // Room for one more than can match: the MSet is never full, so the matcher has no weight to beat and prunes
        // nothing (pruning is what turns an OR into an AND_MAYBE).
        const Xapian::MSet weighed = enquire.get_mset(0, static_cast<Xapian::doccount>(page.size()) + 1);
        for (auto hit = weighed.begin(); hit != weighed.end(); ++hit) scores[*hit] = hit.get_weight();
    }
    result.ranked.clear();
    for (const Xapian::docid did : page) {
        const auto score = scores.find(did);
        result.ranked.emplace_back(did, score == scores.end() ? 0.0 : score->second);
    }
    result.page_first = 0;
    result.page_size = static_cast<Xapian::doccount>(result.ranked.size());
}

}  // namespace cxapian
