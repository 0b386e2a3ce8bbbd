// match_strategies.h — the ways match() runs a query for a page (internal to CXapian).

#ifndef CXAPIAN_ENGINE_MATCH_STRATEGIES_H
#define CXAPIAN_ENGINE_MATCH_STRATEGIES_H

#include "match.h"
#include "query_rewrite.h"
#include "slot_values.h"

#include <xapian.h>

#include <memory>
#include <vector>

namespace cxapian {

/// Whether a walk of `query`'s matches ends once the posting sources `sources` (their queries' `internal`, sorted)
/// end, whatever its other leaves hold: each of an OR's parts ends, one of an AND's does, the first of a filter's.
bool ends_with(const Xapian::Query &query, const std::vector<const void *> &sources);

/// `query`, stopped at `result`'s deadline if it has one: filtered by a DeadlineSource, unless its walk ends when
/// the sources that ask the clock themselves do (MatchResult::clocked_sources, ends_with()).
Xapian::Query until_deadline(const Xapian::Query &query, const MatchResult &result);

/// A match of `query` that weighs nothing, stopped at `result`'s deadline, in whatever order of docids: a walk that
/// counts matches (or values, or collapse keys) and reads no weight.
Xapian::Enquire weightless(const Xapian::Database &database, const Xapian::Query &query, const MatchResult &result);

/// Whether walking `query`'s matches reads each of its lists once, in order: it joins words and terms only by OR
/// (and AND_MAYBE, whose optional side a walk that weighs nothing skips), with no AND, filter, phrase, range or
/// posting source that skips one list to another's documents. Counting such a query's matches again costs little
/// beside weighing them (see match_page()). `query` is one of Xapian's operators and terms (the parsed query, before
/// its rewrite into posting sources).
bool walks_in_one_pass(const Xapian::Query &query);

/// Whether a match of `query` (as parsed, before its words became posting sources) is known to weigh more than
/// nothing: it holds a term that its filters, exclusions and scales leave weighed. False where that is not known (a
/// scaled part, a range, a posting source), as for a query of filters alone, which weighs nothing.
bool weighs(const Xapian::Query &query);

/// Runs `query` for the page `options` asks, with its facets, into `result` (sorted by `table`'s keys if given, see
/// set_order()). With `count_apart` (a query walks_in_one_pass() says so of), the page is matched alone and its
/// matches counted by a second walk that weighs nothing. `weighted`: the query weighs() (its candidates that cannot
/// enter the page are then set aside without passing through it).
void match_page(const Xapian::Database &database, const Xapian::Query &query, const Xapian::Weight &weight,
                const MatchOptions &options, MatchResult &result, Xapian::KeyMaker *table = nullptr,
                bool count_apart = false, bool weighted = false);

/// Rescoring: the best `window` matches of the base query (with its counts and facets), then those documents
/// alone under the whole query (bonus and title similarity included), for the page.
///
/// An exact-phrase bonus (FieldedQuery::bonus_phrases) is weighed for the window directly
/// (cxapian::weigh_phrase_bonus: Xapian's phrase filtered to the window, weighed as the whole query weighs it), and
/// ranked by relevance alone the window is ranked here, from the first match's weights and the title similarity
/// (cxapian::weigh_title_match), rather than by a second match that would open every posting list again to weigh
/// the window's few documents.
void match_rescored(const Xapian::Database &database, const FieldedQuery &fielded, const FieldedRanking &ranking,
                    const Xapian::Weight &weight, const MatchOptions &options, Xapian::doccount window,
                    MatchResult &result, bool count_apart = false, bool weighted = false);

/// Sorted by values, not relevance: the page by a match that weighs nothing (or from the sort's table, see
/// page_by_table()), then its hits alone under the whole query, for their scores.
///
/// A sort by value puts weights to no use in the order: what the values leave tied goes by docid (Xapian's VAL_REL,
/// with every weight 0), as docs/query-language.md promises. Xapian 1.4 still asks for the weight of every match, and
/// the fielded ranking's posting sources work for it, which is most of a common word's search sorted by a value. The
/// parsed query matches what its fielded rewrite matches (the rewrite changes weights, and its bonus and title
/// similarity are optional parts), so the first match is that query under BoolWeight; the second weighs the page's
/// documents as the whole query weighs them, so scores stay what a weighted match gives.
///
/// `table`, if given, gives the one sort key's values (see SlotValues).
void match_by_value(const Xapian::Database &database, const Xapian::Query &parsed, const FieldedQuery &fielded,
                    const Xapian::Weight &weight, const MatchOptions &options, MatchResult &result,
                    std::shared_ptr<const SlotValues> table);

}  // namespace cxapian

#endif
