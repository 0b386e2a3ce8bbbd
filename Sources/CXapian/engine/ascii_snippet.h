// ascii_snippet.h — Xapian's snippet of an ASCII text, written by the engine byte for byte as Xapian writes it
// (internal to CXapian).

#ifndef CXAPIAN_ENGINE_ASCII_SNIPPET_H
#define CXAPIAN_ENGINE_ASCII_SNIPPET_H

#include <xapian.h>

#include <bitset>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cxapian {

/// The longest word, in bytes, Xapian's snippet weighs: it passes over longer ones.
inline constexpr std::size_t longest_snippet_word = 64;

/// What Xapian's MSet::snippet reads of its match set's query and statistics, read once for a page's snippets: the
/// query's loose terms and tight phrases of terms (its check_query(), in the same order), and what each weighs (its
/// check_term(): the term's weight in the match plus the largest, scaled as it scales it), for a weightless match.
struct SnippetWeights {
    /// False where ascii_snippet() cannot give Xapian's snippet: a wildcard, a phrase whose window is unreadable or
    /// of fewer than two terms.
    bool usable = false;
    /// A loose term's index in `loose_relevance`.
    std::unordered_map<std::string, std::size_t> loose;
    std::vector<double> loose_relevance;
    std::vector<std::vector<std::string>> phrases;
    std::vector<double> phrase_relevance;
    std::size_t longest_phrase = 0;
    /// The first bytes of the loose terms, and of the stems of its "Z" terms: a word beginning with none is looked up
    /// in neither way (a stem begins with its word's first byte, see SnippetStemmer).
    std::bitset<256> initials;
    std::bitset<256> stem_initials;
};

/// What the snippets of a weightless match set of `query` (Xapian::BoolWeight) read of it, known from the query
/// alone: such a match's statistics hold every term of its query, and each weighs nothing. So no match need be run
/// for them.
SnippetWeights snippet_weights(const Xapian::Query &query);

/// Xapian's MSet::snippet (exhaustive, CJK text as n-grams) of an ASCII `text`, written here: the same bytes, for a
/// small share of the work (words read a byte at a time from tables of Xapian's own character classes, no look-up of
/// a word that no term begins as). Nothing where the text holds a byte above 0x7F, or `weights` is not usable: ask
/// Xapian then.
std::optional<std::string> ascii_snippet(const SnippetWeights &weights, std::string_view text, std::size_t length,
                                         const Xapian::Stem &stemmer, const std::string &hi_start,
                                         const std::string &hi_end, const std::string &omit);

}  // namespace cxapian

#endif
