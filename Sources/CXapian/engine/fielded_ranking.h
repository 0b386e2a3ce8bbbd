// fielded_ranking.h — the parameters of Spotlite's two-field ranking (internal to CXapian).

#ifndef CXAPIAN_ENGINE_FIELDED_RANKING_H
#define CXAPIAN_ENGINE_FIELDED_RANKING_H

#include "kept_tables.h"
#include "positions.h"
#include "sources/deadline.h"
#include "stem_terms.h"
#include "term_lookups.h"

#include <xapian.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cxapian {

/// The ranking's parameters as a search gives them.
struct RankingParameters {
    double k1;
    double b;
    /// A title occurrence is worth this many idf units (k1 + 1 makes it worth the strongest detail match).
    double title_bonus;
    /// The title's term prefix (e.g. "S"); its stemmed terms are "Z" + prefix + stem.
    std::string title_prefix;
    /// The weight of the title similarity (TitleMatchSource); 0 for none.
    double title_match;
    /// The value slot holding each document's number of distinct title words.
    Xapian::valueno title_words_slot;
};

/// The parameters of the ranking, with what the reader and the index supply.
struct FieldedRanking : RankingParameters {
    explicit FieldedRanking(const RankingParameters &parameters) : RankingParameters(parameters) {}

    /// The title words' numbers in a table, for the single database searched (nullptr: read from the value slot).
    std::shared_ptr<const TitleWords> title_words = nullptr;
    /// The documents' lengths in a table, for the single database searched (nullptr: read from the database).
    std::shared_ptr<const DocLengths> doc_lengths = nullptr;
    /// Which stem terms the index leaves out (nullptr: it writes them all).
    std::shared_ptr<const StemTerms> stems = nullptr;
    /// Where the index keeps its positions, for the phrase bonus (empty: Xapian's position lists).
    PositionsLayout positions;
    /// The term frequencies of the database the query is rewritten for, read once each and kept by the caller for
    /// what it asks after the match (nullptr: the rewrite keeps its own).
    std::shared_ptr<TermLookups> frequencies = nullptr;
    /// The search's deadline, at which the sources walking its words stop (nullptr: none).
    std::shared_ptr<MatchClock> clock = nullptr;
};

}  // namespace cxapian

#endif
