// match.h — a search's match: what it asks, what it finds, the reader it runs on (internal to CXapian).

#ifndef CXAPIAN_ENGINE_MATCH_H
#define CXAPIAN_ENGINE_MATCH_H

#include "fielded_ranking.h"
#include "index_layout.h"
#include "kept_tables.h"
#include "positions.h"
#include "slot_values.h"
#include "snippets.h"
#include "term_lookups.h"

#include <xapian.h>

#include <atomic>
#include <bitset>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cxapian {

/// The metadata keys and term prefixes that say how an index's documents hold their terms (IndexLayoutCache::get;
/// all empty: an index with no pair terms, no left-out stems, projects by their title terms).
struct LayoutKeys {
    std::string word_pairs_key;
    std::string stems_key;
    std::string title_prefix;
    std::string container_prefix;
    std::string domain_prefix;
    /// The key that says an index packs its positions (PositionsLayout; empty: Xapian's own position lists).
    std::string positions_key;
};

struct SortKey {
    Xapian::valueno slot;
    bool descending;
};

/// What a search asks of its match (the C API's cxapian_enquire_options, whose header documents each field).
struct MatchOptions {
    Xapian::doccount first = 0;
    Xapian::doccount max_items = 0;
    /// Value keys, most significant first; none for relevance order.
    std::vector<SortKey> sort_keys;
    bool by_relevance_first = false;
    bool docids_descending = false;
    std::vector<Xapian::valueno> facet_slots;
    Xapian::doccount check_at_least = 0;
    bool unweighted = false;
    /// The two-field ranking; none for Xapian's BM25 over the query as it is.
    std::optional<RankingParameters> ranking;
    /// Optional extra weight for matches that also match it (empty for none).
    Xapian::Query bonus;
    Xapian::doccount rescore_window = 0;
    /// Seconds; 0 for no limit.
    double time_limit = 0;
    bool collapse = false;
    Xapian::valueno collapse_slot = 0;
    /// Whether the reader's per-revision tables may serve the search (a long-lived reader's).
    bool kept_tables = false;
    /// The slot whose value each hit is read for (MatchResult::hit_value), from the reader's table of it where
    /// kept_tables allows one.
    std::optional<Xapian::valueno> hit_value_slot;
    LayoutKeys layout;
};

/// A database opened for searching, with what its searches keep between them.
struct Reader {
    Xapian::Database database;
    /// Where `database` was opened (one database; empty for several): with its UUID and revision, what names its
    /// tables among the readers of this process (cxapian::SharedTables).
    std::string path;
    /// The databases `database` combines, when it combines several (they share its state: reopening it reopens
    /// them): facets are counted in each, since a match spy is not told which one a document is in.
    std::vector<Xapian::Database> parts;
    /// The title-word counts of `database` for the ranking's title similarity, when its searches ask for them.
    cxapian::TitleWordsCache title_words;
    /// The documents' lengths of `database` for the ranking's WordSources, when its searches ask for them.
    cxapian::RevisionTableCache<cxapian::DocLengths> doc_lengths;
    /// The value slots of `database` its searches sort by or range over, when they ask for them.
    cxapian::SlotValuesCache slot_values;
    /// Every document's packed positions, when its searches check phrases (PositionsTable).
    cxapian::RevisionTableCache<cxapian::PositionsTable> positions;
    /// Every document's value in the slot its searches read for each hit (the unique identifier), when they ask.
    cxapian::RevisionTableCache<cxapian::DocumentBytes> hit_values;
    /// What `database`'s metadata records of its terms (its common words, its left-out stem terms).
    cxapian::IndexLayoutCache layout;

    /// What `database`'s metadata records of its terms under the keys `keys` names.
    IndexLayout index_layout(const LayoutKeys &keys);
};

/// Value counts of one facet slot over the matches in one database of the searched ones (shard: its position).
struct Facet {
    uint32_t slot;
    uint32_t shard;
    std::unique_ptr<Xapian::ValueCountMatchSpy> spy;
};

/// A search's page, with its counts, facets and what snippets need.
struct MatchResult {
    Xapian::MSet mset;
    std::vector<Facet> facets;
    /// Set by a match that stopped at the deadline: its counts are then of the matches examined, not all.
    std::shared_ptr<std::atomic<bool>> stopped = std::make_shared<std::atomic<bool>>(false);
    /// When matching stops (the options' time limit from the start of match()), for every match it runs; nullptr
    /// for no limit.
    std::shared_ptr<MatchClock> clock;
    /// The posting sources (their queries' `internal`, sorted) made by this search's rewrite that stop at `clock`
    /// themselves (TermListsSource::stop_at): a query whose walk ends when they end needs no DeadlineSource
    /// (until_deadline()). They are alive while match() runs, which is when they are asked about.
    std::vector<const void *> clocked_sources;
    /// How many databases the searched one combines (a hit's is (docid - 1) % shards).
    Xapian::doccount shards = 1;
    /// The match counts, from the match over every candidate (a rescored page's own MSet counts only the window).
    Xapian::doccount estimated = 0;
    Xapian::doccount lower_bound = 0;
    Xapian::doccount upper_bound = 0;
    /// The page within `mset`: a rescored MSet holds the whole window, ranked at once so that every page of it is
    /// cut from the same ranking.
    Xapian::doccount page_first = 0;
    Xapian::doccount page_size = 0;
    /// A rescored window ranked here rather than by a second match (match_rescored): its documents with their
    /// weights, best first; the page is cut from it, and `mset` holds the first match. Empty otherwise.
    std::vector<std::pair<Xapian::docid, double>> ranked;
    /// The database searched, for the hits' documents and for snippets.
    Xapian::Database database;
    /// Where the ranked query names no terms (the fielded ranking weighs words in posting sources): the parsed
    /// query, whose terms snippets highlight.
    Xapian::Query highlight_query;
    mutable std::optional<Xapian::MSet> highlight_mset;
    mutable std::optional<SnippetWeights> highlight_weights;
    /// The terms of for_snippets()'s query that snippets can highlight: SnippetStemmer stems only words beginning as
    /// one of its stems does, and a snippet walks only the part of a text where such words are (neither where
    /// match() did not say).
    SnippetTerms snippet_terms;
    /// The term frequencies the fielded ranking's rewrite read (nullptr without one).
    std::shared_ptr<TermLookups> frequencies;
    /// The reader's table of the options' hit_value_slot at the revision matched, if it has one.
    std::shared_ptr<const DocumentBytes> hit_values;

    /// The value in `slot` of the document `did` of the page: from the reader's table of it while `database` is at
    /// the table's revision, else from the database.
    std::string hit_value(Xapian::docid did, Xapian::valueno slot) const {
        const DocumentBytes *table = table_of(hit_values.get(), database);
        if (table != nullptr && table->slot() == slot) return std::string(table->bytes(did));
        return document(did).get_value(slot);
    }

    /// Hit `index` of the page: its docid and weight, from `ranked` or from `mset`.
    std::pair<Xapian::docid, double> hit(uint32_t index) const {
        if (!ranked.empty()) return ranked[page_first + index];
        auto at = mset[page_first + index];
        return {*at, at.get_weight()};
    }

    /// The document of a hit. A hit is a document of `database` at this revision, so it is opened as valid: Xapian
    /// does not read its length first to check that it exists (a visible part of a two-word search).
    Xapian::Document document(Xapian::docid did) const { return database.get_document(did, Xapian::DOC_ASSUME_VALID); }

    /// The match set whose query's terms a snippet highlights: for the parsed query, a weightless match of no
    /// documents, made on the first snippet asked for (it weighs the terms alike, as the weightless terms the ranked
    /// query once held did, and costs a search without snippets nothing). It reads the terms' frequencies from the
    /// database the page came from, as reading a hit's data does.
    const Xapian::MSet &for_snippets() const {
        if (highlight_query.empty()) return mset;
        if (!highlight_mset) {
            Xapian::Enquire enquire(database);
            enquire.set_query(highlight_query);
            enquire.set_weighting_scheme(Xapian::BoolWeight());
            highlight_mset = enquire.get_mset(0, 0);
        }
        return *highlight_mset;
    }

    /// What for_snippets()'s query and statistics weigh in a snippet, for ascii_snippet(): known from its query, on
    /// the first snippet asked for, without making for_snippets()'s match set. Only for the parsed query's match set,
    /// whose query is known here and matched weightless (nullptr otherwise: Xapian's snippet then).
    const SnippetWeights *weights_for_snippets() const {
        if (highlight_query.empty()) return nullptr;
        if (!highlight_weights) highlight_weights = snippet_weights(highlight_query);
        return &*highlight_weights;
    }
};

/// The fielded ranking `parameters` describe, over an index of `layout`.
FieldedRanking make_fielded_ranking(const RankingParameters &parameters, const IndexLayout &layout);

/// Matches `query` in `reader` as `options` ask, into `result`: the query resolved against the index's layout
/// (project titles, stems, pair terms), rewritten for the fielded ranking if asked, and run by the strategy that
/// fits (a page in relevance order, a rescored window, a sort by value). `ranges`: the bounded value ranges the
/// query was built with, read from the reader's slot tables where it keeps them.
void match(Reader &reader, const Xapian::Query &query, const std::vector<ValueRangeLeaf> &ranges,
           const MatchOptions &options, MatchResult &result);

}  // namespace cxapian

#endif
