// title_match.h — the title similarity (internal to CXapian).

#ifndef CXAPIAN_ENGINE_TITLE_MATCH_H
#define CXAPIAN_ENGINE_TITLE_MATCH_H

#include "../fielded_ranking.h"
#include "../kept_tables.h"
#include "term_lists.h"

#include <xapian.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cxapian {

/// Documents' numbers of distinct title words, asked for in ascending docid order: from `table` when it was read
/// from this database at its current revision, otherwise (or for a count the table does not hold) from the value
/// stream, moved forward from one document to the next.
class TitleWordReader {
  public:
    TitleWordReader() = default;
    TitleWordReader(const Xapian::Database &database, Xapian::valueno slot, const TitleWords *table);

    /// The count for `did`, 0 for a document without one.
    double words(Xapian::docid did);

  private:
    Xapian::Database database_;
    Xapian::valueno slot_ = 0;
    const TitleWords *table_ = nullptr;
    bool opened_ = false;  // whether stream_ and end_ are the slot's
    Xapian::ValueIterator stream_;
    Xapian::ValueIterator end_;
};

/// Adds `weight` × the Jaccard similarity of the query's words and a document's title words: |Q ∩ T| / |Q ∪ T|,
/// where T's size is read from a value slot (the title's distinct words, sortable-serialised). Titles that say
/// what the query says, and little else, rank first: a near-paraphrase of a bug's title is a likely duplicate, and
/// for short queries it favours concise titles, as per-field length normalisation does.
class TitleMatchSource : public TermListsSource {
  public:
    /// `terms`: one title term per query word (a class of terms, StemTerms::Class: a title holds the word where it
    /// holds any of them), with the word's idf in `idfs`: the overlap is weighted by idf, a title word the query lacks
    /// counting as a query word of average idf.
    TitleMatchSource(std::vector<std::vector<std::string>> terms, std::vector<double> idfs,
                     Xapian::valueno title_words_slot, double weight,
                     std::shared_ptr<const TitleWords> table = nullptr);

    TitleMatchSource *clone() const override;
    void init(const Xapian::Database &database) override;
    double get_weight() const override;
    std::string get_description() const override;

    /// The similarity of a title of `title_words` distinct words holding `matched` of the query's `count` words,
    /// whose idfs add up to `matched_idf` (of `total_idf`), at `weight`.
    static double similarity(size_t matched, double matched_idf, double title_words, size_t count, double total_idf,
                             double weight);

  private:
    std::vector<std::vector<std::string>> terms_;
    std::vector<size_t> word_of_;  // the query word of each term, in the order init() opens them
    std::vector<double> idfs_;
    double total_idf_ = 0;
    Xapian::valueno slot_;
    double weight_;
    // The database's title-word table, when the caller has one (kept for clones; read through title_words_).
    std::shared_ptr<const TitleWords> table_;
    // Moved forward by get_weight(), in step with the documents (which only increase).
    mutable TitleWordReader title_words_;
};

/// The title similarity (TitleMatchSource, over the query's `terms` with their `idfs`) of each of `documents`
/// (ascending, without repeats): the title terms' posting lists and the title-words slot read in document order.
std::vector<double> weigh_title_match(const Xapian::Database &database,
                                      const std::vector<std::vector<std::string>> &terms,
                                      const std::vector<double> &idfs, const FieldedRanking &ranking,
                                      const std::vector<Xapian::docid> &documents);

}  // namespace cxapian

#endif
