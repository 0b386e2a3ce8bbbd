// word.h — a word of the default field, and a title-only word (internal to CXapian).

#ifndef CXAPIAN_ENGINE_WORD_H
#define CXAPIAN_ENGINE_WORD_H

#include "../kept_tables.h"
#include "term_lists.h"
#include "title_match.h"

#include <xapian.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cxapian {

/// Matches the documents any of `terms` index (title terms) with one fixed weight.
class TitleBonusSource : public TermListsSource {
  public:
    TitleBonusSource(std::vector<std::string> terms, double weight);

    TitleBonusSource *clone() const override;
    void init(const Xapian::Database &database) override;
    double get_weight() const override;
    std::string get_description() const override;

  private:
    std::vector<std::string> terms_;
    double weight_;
};

/// One word of the default field, weighed over the item's whole text: BM25 of its detail term with the title
/// counting as one more occurrence (tf = [word in the title] + wdf in the detail, over the document's length), plus
/// a bonus of `title_bonus` for a title holding it. An item whose title alone says the word weighs as much as one
/// whose detail repeats its title once, and a title word weighs more than a detail word.
///
/// A field's term is a class of terms (StemTerms::Class: a stem term, and the word's term where the index leaves the
/// stem term out): a document holds the word where it holds any of them, with the largest wdf among them (the stem
/// term's, which counts every form, where both are there).
class WordSource : public TermListsSource {
  public:
    /// `average_length`: the documents' average length over the whole (multi-)database searched. `lengths`: the
    /// documents' lengths in a table, used when it is of the database searched at its current revision. Without
    /// `title_counts`, a title holding the word only makes the document match (a feedback word of "more like this",
    /// weighed as BM25 of its detail term alone).
    WordSource(std::vector<std::string> detail, std::vector<std::string> title, double idf, double k1, double b,
               double title_bonus, double average_length, std::shared_ptr<const DocLengths> lengths = nullptr,
               bool title_counts = true);

    WordSource *clone() const override;
    void init(const Xapian::Database &database) override;
    double get_weight() const override;
    std::string get_description() const override;

    /// Adds the title similarity of a query of this word alone (TitleMatchSource over its title terms at its idf,
    /// `weight`, the titles' word counts from `slot` or `table`) to each document whose title holds it: what the
    /// similarity's source would add beside it, without a second walk of the same title lists.
    void add_title_match(double weight, Xapian::valueno slot, std::shared_ptr<const TitleWords> table);

  private:
    std::shared_ptr<const DocLengths> lengths_;
    const DocLengths *lengths_here_ = nullptr;  // lengths_, when it is of the database init() was given
    std::vector<std::string> detail_;
    std::vector<std::string> title_;
    double idf_;
    double k1_;
    double b_;
    double title_bonus_;
    double average_length_ = 1;
    bool title_counts_;
    double title_match_ = 0;  // the title similarity's weight, 0 for none (add_title_match())
    Xapian::valueno title_words_slot_ = 0;
    std::shared_ptr<const TitleWords> title_words_table_;
    // Moved forward by get_weight(), in step with the documents (which only increase).
    mutable TitleWordReader title_words_;
};

/// A phrase of two detail words looked up by their pair term (WordPairs): matches the documents holding the pair
/// (which hold both words, together), weighed as Xapian weighs the two words there, BM25 of each word's detail
/// term (FieldedBM25Weight) added up, with the documents' lengths from `lengths` where it is of the database
/// searched. One walk of the three lists, in place of Xapian's AND of two leaves filtered by the pair, each leaf
/// reading the document's length from the index.
class PairPhraseSource : public TermListsSource {
  public:
    /// `words`: the phrase's two detail terms, in order, each with its idf in `idfs`; `pair`: their pair term.
    PairPhraseSource(std::vector<std::string> words, std::string pair, std::vector<double> idfs, double k1, double b,
                     double average_length, std::shared_ptr<const DocLengths> lengths = nullptr);

    PairPhraseSource *clone() const override;
    void init(const Xapian::Database &database) override;
    double get_weight() const override;
    std::string get_description() const override;

  private:
    std::vector<std::string> words_;
    std::string pair_;
    std::vector<double> idfs_;
    double k1_;
    double b_;
    double average_length_;
    std::shared_ptr<const DocLengths> lengths_;
    const DocLengths *lengths_here_ = nullptr;  // lengths_, when it is of the database init() was given
};

}  // namespace cxapian

#endif
