// word.cpp — TitleBonusSource, WordSource and PairPhraseSource. Called only from inside the C API's guarded entry
// points, so exceptions thrown here are caught there.

#include "word.h"
#include "../fielded_weight.h"

#include <cmath>

namespace cxapian {

namespace {

/// `docid`'s length from `table` (the lengths of the database searched, or nullptr), or -1 where it is not known
/// there: the caller then reads it from a posting at the document.
double known_length(const DocLengths *table, Xapian::docid docid) {
    const uint32_t known = table != nullptr ? table->length(docid) : DocLengths::unknown;
    return known != DocLengths::unknown ? static_cast<double>(known) : -1;
}

}  // namespace

// ---- TitleBonusSource ----

TitleBonusSource::TitleBonusSource(std::vector<std::string> terms, double weight)
    : terms_(std::move(terms)), weight_(weight) {}

TitleBonusSource *TitleBonusSource::clone() const { return with_shared(new TitleBonusSource(terms_, weight_)); }

void TitleBonusSource::init(const Xapian::Database &database) {
    open(database, terms_);
    set_maxweight(weight_);
}

double TitleBonusSource::get_weight() const { return weight_; }

std::string TitleBonusSource::get_description() const {
    std::string description = "TitleBonusSource(";
    for (size_t i = 0; i < terms_.size(); ++i) description += (i ? " " : "") + terms_[i];
    return description + ")";
}

// ---- WordSource ----

WordSource::WordSource(std::vector<std::string> detail, std::vector<std::string> title, double idf, double k1, double b,
                       double title_bonus, double average_length, std::shared_ptr<const DocLengths> lengths,
                       bool title_counts)
    : lengths_(std::move(lengths)), detail_(std::move(detail)), title_(std::move(title)), idf_(idf), k1_(k1), b_(b),
      title_bonus_(title_bonus), average_length_(std::max(1.0, average_length)), title_counts_(title_counts) {}

WordSource *WordSource::clone() const {
    auto *copy = new WordSource(detail_, title_, idf_, k1_, b_, title_bonus_, average_length_, lengths_, title_counts_);
    copy->add_title_match(title_match_, title_words_slot_, title_words_table_);
    return with_shared(copy);
}

void WordSource::add_title_match(double weight, Xapian::valueno slot, std::shared_ptr<const TitleWords> table) {
    title_match_ = weight;
    title_words_slot_ = slot;
    title_words_table_ = std::move(table);
}

void WordSource::init(const Xapian::Database &database) {
    // `database` is one part of a multi-database: the average length stays the whole's, given when made.
    std::vector<std::string> terms = detail_;
    terms.insert(terms.end(), title_.begin(), title_.end());
    open(database, terms);
    lengths_here_ = table_of(lengths_.get(), database);
    if (title_match_ > 0) title_words_ = TitleWordReader(database, title_words_slot_, title_words_table_.get());
    // A document without the word in its title weighs BM25 of its detail alone, under idf × (k1 + 1): past that,
    // only the title's documents can make the page.
    if (title_counts_ && !title_.empty()) lead_past(idf_ * (k1_ + 1), detail_.size());
    // BM25 tends to idf × (k1 + 1) as tf grows; the title similarity is at most its weight.
    set_maxweight(idf_ * (k1_ + 1) + title_bonus_ + title_match_);
}

double WordSource::get_weight() const {
    double in_detail = 0;
    double length = known_length(lengths_here_, get_docid());
    bool in_title = false;
    for_each_posting([&](size_t term, const Xapian::PostingIterator &posting) {
        if (term < detail_.size()) {
            in_detail = std::max(in_detail, static_cast<double>(posting.get_wdf()));
        } else {
            in_title = true;
        }
        if (length < 0) length = posting.get_doclength();
    });
    const double tf = in_detail + (in_title && title_counts_ ? 1 : 0);
    if (tf == 0) return 0;
    const double weight =
        idf_ * FieldedBM25Weight::saturation(tf, length, average_length_, k1_, b_) + (in_title ? title_bonus_ : 0);
    if (!in_title || title_match_ <= 0) return weight;
    // TitleMatchSource's sum for one word: the word's idf matched of its idf alone.
    return weight + TitleMatchSource::similarity(1, idf_, title_words_.words(get_docid()), 1, idf_, title_match_);
}

std::string WordSource::get_description() const {
    std::string description = "WordSource(";
    for (const auto &term : detail_) description += term + " ";
    for (const auto &term : title_) description += term + " ";
    description.back() = ')';
    return description;
}

// ---- PairPhraseSource ----

PairPhraseSource::PairPhraseSource(std::vector<std::string> words, std::string pair, std::vector<double> idfs,
                                   double k1, double b, double average_length, std::shared_ptr<const DocLengths> lengths)
    : words_(std::move(words)), pair_(std::move(pair)), idfs_(std::move(idfs)), k1_(k1), b_(b),
      average_length_(std::max(1.0, average_length)), lengths_(std::move(lengths)) {}

PairPhraseSource *PairPhraseSource::clone() const {
    return with_shared(new PairPhraseSource(words_, pair_, idfs_, k1_, b_, average_length_, lengths_));
}

void PairPhraseSource::init(const Xapian::Database &database) {
    // The pair first: the rarest list leads the walk of the documents holding all three.
    std::vector<std::string> terms{pair_};
    terms.insert(terms.end(), words_.begin(), words_.end());
    open(database, terms, true);
    lengths_here_ = table_of(lengths_.get(), database);
    double most = 0;
    for (double idf : idfs_) most += idf * (k1_ + 1);
    set_maxweight(most);
}

double PairPhraseSource::get_weight() const {
    double length = known_length(lengths_here_, get_docid());
    double weight = 0;
    for_each_posting([&](size_t term, const Xapian::PostingIterator &posting) {
        if (length < 0) length = posting.get_doclength();
        if (term == 0) return;  // the pair weighs nothing
        weight += idfs_[term - 1] *
                  FieldedBM25Weight::saturation(static_cast<double>(posting.get_wdf()), length, average_length_, k1_, b_);
    });
    return weight;
}

std::string PairPhraseSource::get_description() const {
    std::string description = "PairPhraseSource(" + pair_;
    for (const auto &word : words_) description += " " + word;
    return description + ")";
}

}  // namespace cxapian
