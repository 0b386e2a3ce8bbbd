// stemmer.h — the stemmer the engine indexes, parses and highlights with (internal to CXapian).

#ifndef CXAPIAN_ENGINE_STEMMER_H
#define CXAPIAN_ENGINE_STEMMER_H

#include <xapian.h>

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

/// The stemmer for `language` (a Snowball name), remembering its stems; none (no stemming) for "" or "none".
inline Xapian::Stem make_stemmer(const std::string &language) {
    if (language.empty() || language == "none") return Xapian::Stem();
    return Xapian::Stem(new CachingStemmer(language, stemmer_capacity));
}

}  // namespace cxapian

#endif
