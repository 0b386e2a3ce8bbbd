// snippets.h — a hit's snippet: Xapian's, walked over only the part of the text it can come from (internal to
// CXapian).

#ifndef CXAPIAN_ENGINE_SNIPPETS_H
#define CXAPIAN_ENGINE_SNIPPETS_H

#include "ascii_snippet.h"

#include <xapian.h>

#include <bitset>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>

namespace cxapian {

/// What words of a text a snippet of a query can highlight.
struct SnippetTerms {
    /// The first bytes of the query's stem terms ("Z" + stem), which SnippetStemmer stems only words beginning with.
    std::bitset<256> stem_initials = std::bitset<256>().set();
    /// The first bytes of every term a word of the text can match: the word itself (a term without a prefix, a
    /// phrase's terms), or its stem.
    std::bitset<256> initials = std::bitset<256>().set();
    /// Those terms.
    std::unordered_set<std::string> terms;
    /// Whether `initials` and `terms` are all a word can match: not for a query holding a wildcard (its pattern is
    /// not a term) or "Z" alone (which every word the snippet stemmer passes over matches), nor where match() did
    /// not say.
    bool known = false;
};

/// The terms of `query` a snippet can highlight (see SnippetTerms). A word of the text, as Xapian's snippet makes
/// it, is lowercased: a term beginning with an ASCII capital (a field's prefix) matches none, unless it is "Z" + a
/// stem, and a stem begins with its word's first byte (see SnippetStemmer).
SnippetTerms snippet_terms(const Xapian::Query &query);

/// The part of `text` [from, to) whose snippet is the whole text's, for a snippet of `length` bytes (Xapian's
/// MSet::snippet) highlighting `terms`, with words stemmed by `stemmer`; the whole text when no part is known to be.
///
/// Xapian's snippet walks every word of the text with a window of `length` + 1 bytes, and keeps the window whose
/// highlighted words weigh the most (the later of equals). What the window holds, and so its weight, depends only on
/// the words of the last `length` + 1 bytes, so neither the words more than that before the first word that can be
/// highlighted, nor those more than that after the last, can change which window wins. The part is cut where a word
/// begins after ASCII white space, so the words on each side are the same words as in the whole text, and what the
/// snippet looks at past its ends (a sentence's end, trailing punctuation, "…") is the same. Where no word can be
/// highlighted, tail_span(); where the part's snippet highlights none (a word taken to be highlighted was not),
/// neither does the whole text's: ask again with tail_span().
///
/// A word is read as Xapian's tokenizer reads it where that is plain: ASCII letters and digits from a byte that is
/// not one, up to one that is neither nor joins a word (an apostrophe, "&", "_", "+", "#", a digit's "." or ",", an
/// acronym's "."): it can be highlighted if it, or "Z" + its stem, is one of the terms. Any other word beginning
/// with one of the terms' initials (or at any non-ASCII character where an initial is non-ASCII, or U+0130 and
/// U+212A, which Xapian lowercases to ASCII "i" and "k") is taken to be highlighted.
std::pair<std::size_t, std::size_t> snippet_span(std::string_view text, const SnippetTerms &terms,
                                                 const Xapian::Stem &stemmer, std::size_t length);

/// The part of `text` [from, to) whose snippet is the whole text's where the snippet highlights no word, for a
/// snippet of `length` bytes: Xapian's snippet is then the last window of words it walked, which depends only on the
/// words of the last `length` + 1 bytes up to the last word. The whole text where that word is not known to be walked
/// (it may be longer than the 64 bytes beyond which a snippet passes over a word).
std::pair<std::size_t, std::size_t> tail_span(std::string_view text, std::size_t length);

/// The match set a snippet is Xapian's from, asked for only where Xapian walks the text (making it may run a match).
using SnippetMatchSet = std::function<const Xapian::MSet &()>;

/// `mset`'s snippet of `text` (MSet::snippet, exhaustive, CJK text as n-grams) of `length` bytes, words highlighted
/// between `hi_start` and `hi_end`, `omit` where text is left out: the same snippet as of the whole text, from
/// the part of it snippet_span() gives (or tail_span(), where that part's snippet highlights nothing). Each part is
/// walked by ascii_snippet() where `weights` (snippet_weights() of a weightless `mset`'s query, or nullptr) allow,
/// else by Xapian.
std::string snippet(const SnippetMatchSet &mset, const SnippetTerms &terms, std::string_view text,
                    std::size_t length, const Xapian::Stem &stemmer, const std::string &hi_start,
                    const std::string &hi_end, const std::string &omit, const SnippetWeights *weights = nullptr);

}  // namespace cxapian

#endif
