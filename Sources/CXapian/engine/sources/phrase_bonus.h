// phrase_bonus.h — the exact-phrase bonus (internal to CXapian).

#ifndef CXAPIAN_ENGINE_PHRASE_BONUS_H
#define CXAPIAN_ENGINE_PHRASE_BONUS_H

#include "../fielded_ranking.h"
#include "../fielded_weight.h"
#include "../positions.h"
#include "term_lists.h"

#include <xapian.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cxapian {

/// One exact phrase of a bonus: its terms, in order, whether they are title terms, and what it weighs as the bonus
/// weighs it: a phrase of detail terms adds each term's BM25 (FieldedBM25Weight, with the term's `idfs`), a phrase
/// of title terms (which carry no wdf) adds `title_weight`, each term's title bonus (as a title phrase rewritten by
/// rewrite_for_fields() would).
struct BonusPhrase {
    std::vector<std::string> terms;
    bool title = false;
    std::vector<double> idfs;
    double title_weight = 0;

    /// Sets the weights from `database`'s statistics (the whole of a multi-database).
    void weigh(const Xapian::Database &database, const FieldedRanking &ranking);

    /// What term `term` of a detail phrase adds to a document holding the phrase, with the term's `wdf` there and
    /// the document's `length`.
    double detail_weight(size_t term, Xapian::termcount wdf, Xapian::termcount length, double average_length,
                         const FieldedRanking &ranking) const {
        return idfs[term] * FieldedBM25Weight::saturation(wdf, length, average_length, ranking.k1, ranking.b);
    }
};

/// The exact-phrase bonus of one phrase: matches the documents holding all of its terms, and weighs those holding
/// them together, in order, at consecutive positions, as BonusPhrase says; 0 for the others.
///
/// Used for the bonus instead of Xapian's OP_PHRASE under OP_AND_MAYBE: with the title similarity beside it, Xapian
/// 1.4 gave the phrase's weight to documents holding its words apart (seen on the Debian and synthetic corpora).
class PhraseBonusSource : public TermListsSource {
  public:
    /// `average_length`: the documents' average length over the whole (multi-)database searched.
    PhraseBonusSource(BonusPhrase phrase, const FieldedRanking &ranking, double average_length);

    PhraseBonusSource *clone() const override;
    void init(const Xapian::Database &database) override;
    double get_weight() const override;
    std::string get_description() const override;

  private:
    BonusPhrase phrase_;
    FieldedRanking ranking_;
    double average_length_;
    /// The phrase's terms' positions in the document at hand (packed in the document's data, or Xapian's lists).
    mutable PositionReader reader_;
    mutable std::vector<std::vector<Xapian::termpos>> positions_;
};

/// The exact-phrase bonus (`phrases`, FieldedQuery::bonus_phrases) of each of `documents` (ascending, without
/// repeats), weighed as PhraseBonusSource weighs it. Into `matched` and `weights`: the documents a phrase matches,
/// ascending, and what the bonus adds to each.
///
/// Each phrase is an exact phrase checked against the index's positions (check_positions), filtered to the documents
/// (OP_FILTER over a DocidListSource; as a filter, not the optional side of an AND_MAYBE, where Xapian 1.4 misplaces
/// its weight, see PhraseBonusSource), weighed by FieldedBM25Weight for a detail phrase (what
/// BonusPhrase::detail_weight adds up) and by its title_weight for a title phrase.
void weigh_phrase_bonus(const Xapian::Database &database, const std::vector<BonusPhrase> &phrases,
                        const std::vector<Xapian::docid> &documents, const FieldedRanking &ranking,
                        std::vector<Xapian::docid> &matched, std::vector<double> &weights);

}  // namespace cxapian

#endif
