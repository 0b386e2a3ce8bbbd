// snippets.cpp — snippet_terms, snippet_span and snippet. Called only from inside the C API's guarded entry points,
// so exceptions thrown here are caught there.

#include "snippets.h"

#include <array>

namespace cxapian {

namespace {

bool has_wildcard(const Xapian::Query &query) {
    if (query.get_type() == Xapian::Query::OP_WILDCARD) return true;
    for (size_t i = 0, count = query.get_num_subqueries(); i < count; ++i) {
        if (has_wildcard(query.get_subquery(i))) return true;
    }
    return false;
}

bool is_capital(unsigned char byte) { return byte >= 'A' && byte <= 'Z'; }
bool is_digit(unsigned char byte) { return byte >= '0' && byte <= '9'; }
/// An ASCII capital as Xapian's tokenizer lowercases it; any other byte as it is.
unsigned char lower(unsigned char byte) { return is_capital(byte) ? byte | 0x20 : byte; }

/// ASCII letters and digits, by byte: a table, as the scan for words tests every byte of a text.
constexpr std::array<bool, 256> ascii_word_bytes = [] {
    std::array<bool, 256> word{};
    for (int byte = 0; byte < 256; ++byte) {
        word[byte] = (byte >= '0' && byte <= '9') || (byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z');
    }
    return word;
}();
bool is_ascii_word_byte(unsigned char byte) { return ascii_word_bytes[byte]; }
bool is_ascii_space(unsigned char byte) { return byte == ' ' || byte == '\t' || byte == '\n' || byte == '\r'; }

/// Whether a cut at `at` leaves the words on each side as they are: a word (an ASCII letter or digit) begins there,
/// after ASCII white space.
bool clean_cut(const unsigned char *bytes, std::size_t size, std::size_t at) {
    return at > 0 && at < size && is_ascii_space(bytes[at - 1]) && is_ascii_word_byte(bytes[at]);
}

/// Whether `byte` may join ASCII letters and digits around it into one word of Xapian's tokenizer, or end one.
bool joins(unsigned char byte) {
    return byte == '\'' || byte == '&' || byte == '_' || byte == '+' || byte == '#' || byte == '.' || byte == ',' ||
           byte == ';';
}

/// The latest cut at or before `at` (see clean_cut()); 0 for none.
std::size_t cut_before(const unsigned char *bytes, std::size_t size, std::size_t at) {
    for (; at > 0; --at) {
        if (clean_cut(bytes, size, at)) return at;
    }
    return 0;
}

/// Whether the ASCII word [from, to) of `bytes` is a word of Xapian's tokenizer as it stands: what follows it ends
/// a word rather than joining more to it (see snippet_span()).
bool plain_word(const unsigned char *bytes, std::size_t size, std::size_t from, std::size_t to) {
    if (to == size) return true;
    const unsigned char next = bytes[to];
    if (next >= 0x80) return false;
    if (!joins(next)) return true;
    if (next != '.' && next != ',' && next != ';') return false;  // ' & _ + # always
    if (is_digit(bytes[to - 1]) && to + 1 < size && is_digit(bytes[to + 1])) return false;  // 3.14, 1,000
    return !(next == '.' && to - from == 1 && is_capital(bytes[from]));                    // U.S.A.
}

}  // namespace

SnippetTerms snippet_terms(const Xapian::Query &query) {
    SnippetTerms terms;
    if (has_wildcard(query)) return terms;
    terms.stem_initials.reset();
    terms.initials.reset();
    for (auto term = query.get_unique_terms_begin(); term != query.get_unique_terms_end(); ++term) {
        const std::string &name = *term;
        if (name.empty()) continue;
        const auto first = static_cast<unsigned char>(name[0]);
        if (!is_capital(first)) {
            terms.initials.set(first);
            terms.terms.insert(name);
            continue;
        }
        if (first != 'Z') continue;  // a field's term: no lowercased word is it
        if (name.size() == 1) return SnippetTerms();
        const auto stem = static_cast<unsigned char>(name[1]);
        terms.stem_initials.set(stem);
        if (is_capital(stem)) continue;
        terms.initials.set(stem);
        terms.terms.insert(name);
    }
    terms.known = true;
    return terms;
}

std::pair<std::size_t, std::size_t> snippet_span(std::string_view text, const SnippetTerms &terms,
                                                 const Xapian::Stem &stemmer, std::size_t length) {
    const std::size_t size = text.size();
    if (!terms.known) return {0, size};
    const auto *bytes = reinterpret_cast<const unsigned char *>(text.data());
    const std::bitset<256> &initials = terms.initials;
    const bool any_non_ascii = (initials >> 0x80).any();
    const bool dotted_i = initials['i'];  // U+0130, C4 B0
    const bool kelvin = initials['k'];    // U+212A, E2 84 AA
    std::size_t first = size;
    std::size_t last = size;
    std::string word;
    std::string stem_term;
    for (std::size_t at = 0; at < size;) {
        const unsigned char byte = bytes[at];
        const std::size_t begins = at;
        bool highlighted = false;
        if (is_ascii_word_byte(byte)) {
            do ++at;
            while (at < size && is_ascii_word_byte(bytes[at]));
            const unsigned char initial = lower(byte);
            if (!initials[initial]) continue;
            if (!plain_word(bytes, size, begins, at)) {
                highlighted = true;
            } else if (at - begins <= longest_snippet_word) {
                word.assign(text.data() + begins, at - begins);
                for (char &c : word) c = static_cast<char>(lower(static_cast<unsigned char>(c)));
                highlighted = terms.terms.count(word) > 0;
                if (!highlighted && terms.stem_initials[initial]) {
                    stem_term.assign(1, 'Z');
                    stem_term += stemmer(word);
                    highlighted = terms.terms.count(stem_term) > 0;
                }
            }
        } else {
            ++at;
            if (byte >= 0xC0) {
                highlighted = any_non_ascii ||
                              (dotted_i && byte == 0xC4 && begins + 1 < size && bytes[begins + 1] == 0xB0) ||
                              (kelvin && byte == 0xE2 && begins + 2 < size && bytes[begins + 1] == 0x84 &&
                               bytes[begins + 2] == 0xAA);
            }
        }
        if (!highlighted) continue;
        if (first == size) first = begins;
        last = begins;
    }
    if (first == size) return tail_span(text, length);
    // Xapian's window holds length + 1 bytes of words: a word that can be highlighted enters it length + 1 bytes
    // after the window's start, so the words before that cannot matter.
    const std::size_t reach = length + 2;
    const std::size_t from = first > reach ? cut_before(bytes, size, first - reach) : 0;
    // The last word that can be highlighted ends before the next white space; the windows that hold it end less
    // than length + 1 bytes after that.
    std::size_t end = last;
    while (end < size && !is_ascii_space(bytes[end])) ++end;
    std::size_t to = size;
    for (std::size_t at = end + reach; at < size; ++at) {
        if (clean_cut(bytes, size, at)) {
            to = at;
            break;
        }
    }
    return {from, to};
}

std::pair<std::size_t, std::size_t> tail_span(std::string_view text, std::size_t length) {
    const std::size_t size = text.size();
    const auto *bytes = reinterpret_cast<const unsigned char *>(text.data());
    // The last ASCII letter or digit is in a word the snippet walks, unless that word (with what joins it, and a few
    // bytes to spare) may be longer than the longest it weighs.
    std::size_t end = size;
    while (end > 0 && !is_ascii_word_byte(bytes[end - 1])) --end;
    std::size_t begin = end;
    while (begin > 0 && (is_ascii_word_byte(bytes[begin - 1]) || joins(bytes[begin - 1]))) --begin;
    const bool joined =
        (begin > 0 && bytes[begin - 1] >= 0x80) || (end < size && (bytes[end] >= 0x80 || joins(bytes[end])));
    if (end == 0 || end - begin > longest_snippet_word - 4 || joined) return {0, size};
    const std::size_t reach = length + 2;
    return {end > reach ? cut_before(bytes, size, end - reach) : 0, size};
}

std::string snippet(const SnippetMatchSet &mset, const SnippetTerms &terms, std::string_view text, std::size_t length,
                    const Xapian::Stem &stemmer, const std::string &hi_start, const std::string &hi_end,
                    const std::string &omit, const SnippetWeights *weights) {
    const unsigned flags = Xapian::MSet::SNIPPET_EXHAUSTIVE | Xapian::MSet::SNIPPET_CJK_NGRAM;
    const auto walk = [&](std::string_view part) {
        if (weights) {
            if (auto written = ascii_snippet(*weights, part, length, stemmer, hi_start, hi_end, omit)) return *written;
        }
        return mset().snippet(std::string(part), length, stemmer, flags, hi_start, hi_end, omit);
    };
    const auto whole = [&] { return walk(text); };
    // Whether a snippet highlighted a word is told by its highlight, which the text must not hold already.
    if (hi_start.empty() || text.find(hi_start) != std::string_view::npos) return whole();
    // A part is at least a window on each side of a word, or a window at the end: a text of two windows is walked
    // whole rather than scanned first.
    if (!terms.known || text.size() <= 2 * (length + 2)) return whole();
    const auto of = [&](std::pair<std::size_t, std::size_t> span) {
        return walk(text.substr(span.first, span.second - span.first));
    };
    const auto span = snippet_span(text, terms, stemmer, length);
    const auto tail = tail_span(text, length);
    // A part that may have to be followed by the tail's walk, and together walk more than the whole text: the whole.
    if (span != tail && (span.second - span.first) + (tail.second - tail.first) >= text.size()) return whole();
    std::string part = of(span);
    if (part.find(hi_start) != std::string::npos || span == tail) return part;
    // Nothing highlighted in the part, so nothing in the whole text: its snippet is its last window. Unless the tail
    // holds a word that could be highlighted but never fit the whole text's window (the characters since the word
    // before it and the word itself are longer than the window): cut nearer to it, it can fit, and be highlighted.
    std::string last = of(tail);
    return last.find(hi_start) == std::string::npos ? last : whole();
}

}  // namespace cxapian
