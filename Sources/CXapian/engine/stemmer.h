// stemmer.h — the stemmer the engine indexes, parses and highlights with (internal to CXapian).

#ifndef CXAPIAN_ENGINE_STEMMER_H
#define CXAPIAN_ENGINE_STEMMER_H

#include <xapian.h>

#include <bitset>
#include <cstddef>
#include <string>
#include <unordered_map>

namespace cxapian {

/// A Snowball stemmer that remembers the stems it made, up to `capacity` words (then it starts again).
///
/// Tracker text is Zipf-distributed: a few thousand words make most of it, and the same words are stemmed again
/// and again — for every document a term generator indexes, and for every word of every snippet's text, where
/// Snowball's stemming was most of a page's cost. A look-up costs a small share of a stemming. Like Xapian's own
/// stemmers it is not thread-safe: each term generator, query parser and snippet thread has its own.
class CachingStemmer : public Xapian::StemImplementation {
  public:
    CachingStemmer(const std::string &language, std::size_t capacity)
        : stemmer_(language), language_(language), capacity_(capacity) {}

    std::string operator()(const std::string &word) override {
        if (auto found = stems_.find(word); found != stems_.end()) return found->second;
        std::string stem = stemmer_(word);
        if (stems_.size() >= capacity_) stems_.clear();
        stems_.emplace(word, stem);
        return stem;
    }

    /// What Snowball's stemmer says of itself (its language), so that the Stem reads the same.
    std::string get_description() const override { return language_; }

    std::size_t remembered() const { return stems_.size(); }

  private:
    Xapian::Stem stemmer_;
    std::string language_;
    std::size_t capacity_;
    std::unordered_map<std::string, std::string> stems_;
};

/// How many words a stemmer remembers: about 2 MB of short words.
inline constexpr std::size_t stemmer_capacity = 32768;

/// The stemmer a snippet of English text compares its words with the query's stem terms by: an English stemmer
/// remembering its stems, that passes over a word no query stem can come from.
///
/// Xapian's snippet stems every word of the text and looks "Z" + the stem up among the query's terms. Snowball's
/// English stemmer only changes a word's ending (and an initial apostrophe, which a word of Xapian's tokenizer never
/// has), so a stem begins with its word's first byte: a word whose first byte begins none of the query's stems gets
/// the empty stem, which no query term ("Z" + a stem of one or more bytes) matches. The snippet is the same; the
/// stemming of most of its words, and their look-ups in the cache, are saved.
class SnippetStemmer : public Xapian::StemImplementation {
  public:
    SnippetStemmer() : stemmer_("english", stemmer_capacity) { initials_.set(); }

    /// The first bytes of the stems of the query a snippet is about to highlight (SnippetTerms::stem_initials).
    void set_initials(const std::bitset<256> &initials) { initials_ = initials; }

    std::string operator()(const std::string &word) override {
        if (!word.empty() && !initials_[static_cast<unsigned char>(word[0])]) return std::string();
        return stemmer_(word);
    }

    std::string get_description() const override { return stemmer_.get_description(); }

  private:
    CachingStemmer stemmer_;
    std::bitset<256> initials_;
};

/// The stemmer for `language` (a Snowball name), remembering its stems; none (no stemming) for "" or "none".
inline Xapian::Stem make_stemmer(const std::string &language) {
    if (language.empty() || language == "none") return Xapian::Stem();
    return Xapian::Stem(new CachingStemmer(language, stemmer_capacity));
}

}  // namespace cxapian

#endif
