// query_rewrite.h — the query rewritten for the two-field ranking (internal to CXapian).

#ifndef CXAPIAN_ENGINE_QUERY_REWRITE_H
#define CXAPIAN_ENGINE_QUERY_REWRITE_H

#include "fielded_ranking.h"
#include "sources/phrase_bonus.h"

#include <xapian.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cxapian {

/// A query rewritten for the fielded ranking, in its parts: what every match is ranked by, and the extras that
/// only add weight to some matches (they never change which documents match).
struct FieldedQuery {
    /// The query itself, each word a WordSource.
    Xapian::Query base;
    /// The bonus (e.g. the words as an exact phrase), rewritten alike; empty for none.
    Xapian::Query bonus;
    /// The title similarity (TitleMatchSource); empty for none.
    Xapian::Query title_match;
    /// What the title similarity weighs: the query's title terms (a class of terms a word), each word's idf.
    std::vector<std::vector<std::string>> title_terms;
    std::vector<double> title_idfs;
    /// The bonus as exact phrases, each weighed, when it is an OR of such phrases (the bonus is then their
    /// PhraseBonusSources); empty otherwise.
    std::vector<BonusPhrase> bonus_phrases;
    /// The posting sources of `base` that stop at the ranking's clock themselves (their queries' `internal`, sorted;
    /// see until_deadline()).
    std::vector<const void *> clocked_sources;

    /// The query as a whole: the base, with the bonus and the title similarity where they match.
    Xapian::Query whole() const;
};

/// `query` (and `bonus`, its optional extra weight) with each word's pair of terms turned into a WordSource and
/// title-only terms into a TitleBonusSource, as described above, and the title similarity over the words of both.
/// Sub-queries it does not know stay as they are.
FieldedQuery rewrite_for_fields(const Xapian::Query &query, const Xapian::Query &bonus,
                                const Xapian::Database &database, const FieldedRanking &ranking);

}  // namespace cxapian

#endif
