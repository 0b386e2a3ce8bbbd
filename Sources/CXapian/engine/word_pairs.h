// word_pairs.h — terms for pairs of common words next to each other, so that a phrase of them is looked up rather
// than checked position by position (internal to CXapian).
//
// Xapian checks an exact phrase by reading the positions of each of its terms in every document holding all of
// them. For two common words that is most of the index, each document a position look-up per word
// (docs/decisions/0004-common-word-pairs.md). Search engines answer such phrases from pairs indexed as terms of their
// own ("common grams": Lucene's CommonGramsFilter, the HathiTrust full-text search): a phrase's pair term has the
// phrase's documents and no others.
//
// Only pairs of two common words get a term. Which words are common is decided once per index, when it is built
// (WordSample, from a sample of its documents), and kept in its metadata: every document of the index, whenever it
// was written, has the terms of the same set of words, so a phrase of two of them that a document holds always finds
// the document's pair term. A phrase holding a rarer word keeps Xapian's check, whose candidates are then the rarer
// word's few documents.
//
// A pair term is `XWP` (a detail's pair) or `XWT` (a title's) and the two words' numbers in the set, each one byte
// (the 222 most frequent words) or two (a space first), never a control character (nor a newline in `xapian-delve`'s
// list of terms): 5 bytes for most, so that the 20–30 pairs of a document cost little in its term list. With a term
// per field, an exact phrase of two common words is its pair term's documents exactly: it is matched as the two words
// filtered by the pair, with no positions read at all.

#ifndef CXAPIAN_ENGINE_WORD_PAIRS_H
#define CXAPIAN_ENGINE_WORD_PAIRS_H

#include <xapian.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace cxapian {

/// The terms of `query` if it is a phrase (OP_PHRASE) of two or more leaf terms, in order, into `terms`; false for
/// anything else.
bool phrase_leaves(const Xapian::Query &query, std::vector<std::string> &terms);

/// Whether the phrase `query` is exact: its window is as wide as it has terms (consecutive positions).
bool is_exact_phrase(const Xapian::Query &query);

/// The common words of an index, whose pairs are indexed.
class WordPairs {
  public:
    /// Word numbers written in one byte: the bytes 0x21–0x7E and 0x80–0xFF.
    static constexpr uint32_t one_byte_codes = 94 + 128;
    /// At most this many words: 222 numbered in one byte, as many more in two.
    static constexpr size_t max_words = 2 * one_byte_codes;
    /// What the pair terms of a detail's words start with.
    static const std::string detail_pair_prefix;
    /// What the pair terms of a title's words start with.
    static const std::string title_pair_prefix;

    /// The words of `list` (one a line, as WordSample::choose() writes them and the index's metadata keeps them),
    /// numbered in order; words past max_words, empty lines and repeats are ignored.
    WordPairs(const std::string &list, std::string title_prefix);

    bool empty() const { return numbers_.empty(); }

    /// Adds to `document` the pair term of every two of the set's words at consecutive positions of one field (the
    /// title's terms are `title_prefix` + word, the detail's the word alone; stems and boolean terms have no
    /// positions). Call once all of the document's text is indexed.
    void add_to(Xapian::Document &document) const;

    /// `query` with each exact phrase (OP_PHRASE whose window is its length) under AND, OR, FILTER, AND_NOT,
    /// AND_MAYBE, XOR or MAX nodes filtered by the pair terms of its consecutive words of one field that are both in
    /// the set. A phrase of two such words becomes the AND of its two terms filtered by their pair, which checks no
    /// positions; a longer one still checks them, now only in documents that hold every such pair. The matches, and
    /// their weights (a phrase weighs the sum of its terms' weights, as the AND does), are the same. Anything else is
    /// left as it is.
    Xapian::Query filter_phrases(const Xapian::Query &query) const;

  private:
    /// The word of a positional text term and its field (true for the title); false for any other term.
    bool split(const std::string &term, std::string &word, bool &title) const;
    /// Into `filtered`, `query` with its exact phrases filtered; false (and `filtered` untouched) if there was none
    /// to filter.
    bool filter(const Xapian::Query &query, Xapian::Query &filtered) const;
    /// The pair term of two of the set's words (by number) next to each other in a title or a detail.
    static std::string term(uint32_t first, uint32_t second, bool title);
    /// Appends a word's number as the pair terms write it.
    static void append_number(std::string &term, uint32_t number);

    std::unordered_map<std::string, uint32_t> numbers_;
    std::string title_prefix_;
};

/// Document frequencies of positional words over a sample of documents, from which WordPairs's set is chosen.
class WordSample {
  public:
    explicit WordSample(std::string title_prefix) : title_prefix_(std::move(title_prefix)) {}

    /// Counts the distinct words of `document`'s title and detail (as WordPairs reads them) once each.
    void add(const Xapian::Document &document);

    /// The words held by at least `min_share` of the documents added and by at least `min_documents` of them, most
    /// frequent first (then in byte order), at most `max_words`: one a line.
    std::string choose(double min_share, Xapian::doccount min_documents, size_t max_words) const;

  private:
    std::string title_prefix_;
    std::unordered_map<std::string, Xapian::doccount> frequencies_;
    Xapian::doccount documents_ = 0;
};

}  // namespace cxapian

#endif
