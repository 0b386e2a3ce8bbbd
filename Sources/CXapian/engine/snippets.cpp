// snippets.cpp — snippet_terms, snippet_span and snippet. Called only from inside the C API's guarded entry points,
// so exceptions thrown here are caught there.

#include "snippets.h"

#include "query_parts.h"

#include <algorithm>
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

/// The longest word, in bytes, Xapian's snippet weighs: it passes over longer ones.
constexpr std::size_t longest_word = 64;

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

/// Xapian's character classes of the ASCII characters, read from Xapian's own tables (Xapian::Unicode): what
/// ascii_snippet() reads a text by, a byte at a time, in place of a Utf8Iterator and a look-up per character.
struct AsciiClasses {
    std::array<bool, 128> word{};      // Unicode::is_wordchar: letters, digits, '_'
    std::array<bool, 128> space{};     // Unicode::is_whitespace: ' ' and the control characters
    std::array<bool, 128> digit{};     // DECIMAL_DIGIT_NUMBER
    std::array<bool, 128> leading{};   // snippet_check_leading_nonwordchar
    std::array<bool, 128> trailing{};  // snippet_check_trailing_nonwordchar
    std::array<unsigned char, 128> lower{};
};

const AsciiClasses &ascii_classes() {
    static const AsciiClasses classes = [] {
        namespace U = Xapian::Unicode;
        AsciiClasses c;
        for (unsigned ch = 0; ch < 128; ++ch) {
            const U::category category = U::get_category(ch);
            const bool currency = U::is_currency(ch);
            c.word[ch] = U::is_wordchar(ch);
            c.space[ch] = U::is_whitespace(ch);
            c.digit[ch] = category == U::DECIMAL_DIGIT_NUMBER;
            c.lower[ch] = static_cast<unsigned char>(U::tolower(ch));
            c.leading[ch] = currency || category == U::OPEN_PUNCTUATION || category == U::INITIAL_QUOTE_PUNCTUATION ||
                            (ch != 0 && std::string_view("\"#%&'+-/<@\\`~").find(char(ch)) != std::string_view::npos);
            c.trailing[ch] = currency || category == U::CLOSE_PUNCTUATION || category == U::FINAL_QUOTE_PUNCTUATION ||
                             (ch != 0 && std::string_view("\"%'+-/>@\\`~").find(char(ch)) != std::string_view::npos);
        }
        return c;
    }();
    return classes;
}

/// Calls `word(term, end)` for each word Xapian's tokenizer (parse_terms, without CJK, which ASCII has none of)
/// reads in the ASCII text `bytes`: `term` the word as it makes it (lowercased, an acronym without its dots, infixes
/// and up to three "+" or "#" kept), `end` the byte after it.
template <typename Word>
void ascii_words(const unsigned char *bytes, std::size_t size, std::string &term, Word &&word) {
    const AsciiClasses &c = ascii_classes();
    const auto wordchar = [&](std::size_t at) { return c.word[bytes[at]] ? c.lower[bytes[at]] : 0; };
    std::size_t at = 0;
    while (true) {
        while (true) {
            if (at == size) return;
            if (c.word[bytes[at]]) break;
            ++at;
        }
        term.clear();
        unsigned char ch = c.lower[bytes[at]];
        // Initials separated by "." (P.T.O.): one word, when more than one letter and no word character follows.
        if (is_capital(bytes[at])) {
            std::size_t p = at;
            do term += char(c.lower[bytes[p++]]);
            while (p != size && bytes[p] == '.' && ++p != size && is_capital(bytes[p]));
            if (term.size() > 1 && (p == size || !c.word[bytes[p]])) {
                at = p;
                word(term, at);
                continue;
            }
            term.clear();
        }
        bool ended = false;
        while (true) {
            unsigned char previous;
            do {
                term += char(ch);
                previous = ch;
                if (++at == size) {
                    ended = true;
                    break;
                }
                ch = wordchar(at);
            } while (ch);
            if (ended) break;
            const std::size_t next = at + 1;
            if (next == size) break;
            const unsigned char next_ch = wordchar(next);
            if (!next_ch) break;
            unsigned char infix = bytes[at];
            if (c.digit[previous] && c.digit[bytes[next]]) {
                if (infix != ',' && infix != '.' && infix != ';') infix = 0;  // 3.14, 1,000
            } else if (infix != '\'' && infix != '&') {
                infix = 0;  // AT&T, don't
            }
            if (!infix) break;
            term += char(infix);
            ch = next_ch;
            at = next;
        }
        if (!ended) {
            // Up to three "+" or "#" (C++, C#), unless a word character follows them.
            const std::size_t length = term.size();
            unsigned count = 0;
            while (bytes[at] == '+' || bytes[at] == '#') {
                if (++count > 3) {
                    term.resize(length);
                    break;
                }
                term += char(bytes[at]);
                if (++at == size) {
                    ended = true;
                    break;
                }
            }
            if (!ended && c.word[bytes[at]]) term.resize(length);
        }
        word(term, at);
    }
}

/// A word in Xapian's snippet window (its Sniplet): what it weighs (shared by the term's words), where it ends, and
/// how many words its highlight spans.
struct Sniplet {
    double *relevance;
    std::size_t term_end;
    std::size_t highlight;
};

/// The operations of a std::deque that Xapian's SnipPipe uses, over a vector.
class Sniplets {
  public:
    bool empty() const { return head_ == items_.size(); }
    std::size_t size() const { return items_.size() - head_; }
    Sniplet &operator[](std::size_t index) { return items_[head_ + index]; }
    Sniplet &front() { return items_[head_]; }
    Sniplet &back() { return items_.back(); }
    void push_back(const Sniplet &sniplet) { items_.push_back(sniplet); }
    void pop_front() {
        if (++head_ == items_.size()) {
            clear();
        } else if (head_ >= 64 && head_ * 2 >= items_.size()) {
            items_.erase(items_.begin(), items_.begin() + std::ptrdiff_t(head_));
            head_ = 0;
        }
    }
    void pop_back() {
        items_.pop_back();
        if (head_ == items_.size()) clear();
    }
    void clear() {
        items_.clear();
        head_ = 0;
    }
    void swap(Sniplets &other) {
        items_.swap(other.items_);
        std::swap(head_, other.head_);
    }

  private:
    std::vector<Sniplet> items_;
    std::size_t head_ = 0;
};

/// Xapian's append_escaping_xml: "&", "<" and ">" as entities, the runs between them appended whole.
void append_escaping_xml(const char *p, const char *end, std::string &output) {
    while (p != end) {
        const char *run = p;
        while (p != end && *p != '&' && *p != '<' && *p != '>') ++p;
        output.append(run, std::size_t(p - run));
        if (p == end) return;
        output += *p == '&' ? "&amp;" : *p == '<' ? "&lt;" : "&gt;";
        ++p;
    }
}

/// Xapian's SnipPipe (termgenerator_internal.cc), exhaustive, over ASCII text: the window of words that weighs the
/// most, and the snippet written from it. Its arithmetic is Xapian's, step for step, so that equal windows tie
/// as they tie there.
class SnippetWindow {
  public:
    explicit SnippetWindow(std::size_t length) : length_(length + 1) {}

    void pump(double *r, std::size_t t, std::size_t h) {
        constexpr double decay = 2.0;
        if (h > 1) {
            if (pipe_.size() >= h - 1) {
                // A phrase's last word enters the window: its weight goes on its first word.
                Sniplet &phrase_start = pipe_[pipe_.size() - (h - 1)];
                if (phrase_start.relevance) {
                    *phrase_start.relevance *= decay;
                    sum_ -= *phrase_start.relevance;
                }
                sum_ += *r;
                phrase_start.relevance = r;
                phrase_start.highlight = h;
                *r /= decay;
            }
            r = nullptr;
            h = 0;
        }
        pipe_.push_back({r, t, h});
        if (r) {
            sum_ += *r;
            *r /= decay;
        }
        while (t - begin_ > length_) {
            const Sniplet word = pipe_.front();
            if (word.relevance) {
                *word.relevance *= decay;
                sum_ -= *word.relevance;
            }
            begin_ = word.term_end;
            if (best_end_ >= begin_) best_pipe_.push_back(word);
            pipe_.pop_front();
            if (pipe_.empty()) break;
        }
        if (sum_ >= best_sum_) {
            if (begin_ >= best_end_) {
                best_pipe_.clear();
            } else {
                while (!best_pipe_.empty() && best_pipe_.front().term_end <= begin_) best_pipe_.pop_front();
            }
            best_sum_ = sum_;
            best_begin_ = begin_;
            best_end_ = t;
        }
    }

    void done() {
        if (begin_ >= best_end_) {
            pipe_.clear();
        } else {
            while (!pipe_.empty() && pipe_.back().term_end > best_end_) pipe_.pop_back();
        }
    }

    bool drain(std::string_view input, const std::string &hi_start, const std::string &hi_end,
               const std::string &omit, std::string &output) {
        const AsciiClasses &c = ascii_classes();
        const auto *bytes = reinterpret_cast<const unsigned char *>(input.data());
        const auto is_end = [](unsigned char ch) { return ch == '.' || ch == '?' || ch == '!'; };
        if (best_pipe_.empty() && !pipe_.empty()) best_pipe_.swap(pipe_);
        if (best_pipe_.empty()) {
            if (input.size() == best_end_) return false;
            // The end of a sentence: its punctuation.
            bool sentence_end = false;
            std::size_t i = best_end_;
            for (; i < input.size(); ++i) {
                const unsigned char ch = bytes[i];
                if (sentence_end && c.space[ch]) break;
                sentence_end = is_end(ch);
                if (c.word[ch]) break;
            }
            if (sentence_end) {
                append_escaping_xml(input.data() + best_end_, input.data() + i, output);
                return false;
            }
            // Up to four characters of trailing punctuation that carry meaning.
            i = best_end_;
            int trailing_punc = 0;
            while (i < input.size() && c.trailing[bytes[i]]) {
                if (++trailing_punc > 4) {
                    trailing_punc = 0;
                    break;
                }
                ++i;
            }
            if (trailing_punc) {
                append_escaping_xml(input.data() + best_end_, input.data() + i, output);
                if (i == input.size()) return false;
            }
            output += omit;
            return false;
        }
        const Sniplet word = best_pipe_.front();
        if (output.empty()) {
            // The snippet's start: its first word, with up to four characters of leading punctuation, after "…"
            // unless a sentence begins there.
            enum { no, punctuation, yes } sentence_boundary = best_begin_ == 0 ? yes : no;
            for (std::size_t i = best_begin_; i < word.term_end;) {
                const unsigned char ch = bytes[i];
                switch (sentence_boundary) {
                    case no:
                        if (is_end(ch)) sentence_boundary = punctuation;
                        break;
                    case punctuation:
                        if (c.space[ch]) {
                            sentence_boundary = yes;
                        } else if (!is_end(ch)) {
                            sentence_boundary = no;
                        }
                        break;
                    case yes:
                        break;
                }
                if (c.word[ch]) {
                    if (i - best_begin_ > 4) best_begin_ = i;
                    break;
                }
                ++i;
                if (!c.leading[ch]) best_begin_ = i;
            }
            if (sentence_boundary != yes) output += omit;
        }
        if (word.highlight) {
            // The characters between words stay out of the highlight.
            for (std::size_t i = best_begin_; i < input.size(); ++i) {
                if (c.word[bytes[i]]) {
                    append_escaping_xml(input.data() + best_begin_, input.data() + i, output);
                    best_begin_ = i;
                    break;
                }
            }
        }
        if (!phrase_len_) {
            phrase_len_ = word.highlight;
            if (phrase_len_) output += hi_start;
        }
        append_escaping_xml(input.data() + best_begin_, input.data() + word.term_end, output);
        best_begin_ = word.term_end;
        if (phrase_len_ && --phrase_len_ == 0) output += hi_end;
        best_pipe_.pop_front();
        return true;
    }

  private:
    Sniplets pipe_;
    Sniplets best_pipe_;
    std::size_t length_;
    std::size_t begin_ = 0;
    double sum_ = 0;
    std::size_t phrase_len_ = 0;
    std::size_t best_begin_ = 0;
    std::size_t best_end_ = 0;
    double best_sum_ = 0;
};

/// Xapian's check_query(): the loose terms of `query` (in `loose`, each once, in the order met) and its tight
/// phrases of terms; false where ascii_snippet() cannot follow it.
bool check_query(const Xapian::Query &query, std::vector<std::string> &loose, SnippetWeights &weights) {
    using Q = Xapian::Query;
    const std::size_t count = query.get_num_subqueries();
    const Q::op op = query.get_type();
    if (op == Q::LEAF_TERM) {
        const std::string term = *query.get_unique_terms_begin();
        if (std::find(loose.begin(), loose.end(), term) == loose.end()) loose.push_back(term);
    } else if (op == Q::OP_WILDCARD) {
        return false;
    } else if (op == Q::OP_PHRASE) {
        const auto window = phrase_window(query);
        if (!window) return false;
        bool terms = *window == count;
        for (std::size_t i = 0; terms && i < count; ++i) terms = query.get_subquery(i).get_type() == Q::LEAF_TERM;
        if (terms) {
            if (count < 2) return false;  // Xapian's phrase ring would have no room
            std::vector<std::string> phrase;
            for (std::size_t i = 0; i < count; ++i) phrase.push_back(*query.get_subquery(i).get_unique_terms_begin());
            weights.phrases.push_back(std::move(phrase));
            weights.longest_phrase = std::max(weights.longest_phrase, count);
            return true;
        }
    }
    for (std::size_t i = 0; i < count; ++i) {
        if (!check_query(query.get_subquery(i), loose, weights)) return false;
    }
    return true;
}

/// `term`'s weight in `mset`'s statistics (MSet::get_termweight); none where they lack it.
std::optional<double> term_weight(const Xapian::MSet &mset, const std::string &term) {
    try {
        return mset.get_termweight(term);
    } catch (const Xapian::InvalidArgumentError &) {
        return std::nullopt;
    }
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
            } else if (at - begins <= longest_word) {
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
    if (end == 0 || end - begin > longest_word - 4 || joined) return {0, size};
    const std::size_t reach = length + 2;
    return {end > reach ? cut_before(bytes, size, end - reach) : 0, size};
}

SnippetWeights snippet_weights(const Xapian::MSet &mset, const Xapian::Query &query) {
    SnippetWeights weights;
    std::vector<std::string> loose;
    if (!check_query(query, loose, weights)) return SnippetWeights();
    // Xapian's largest term weight (get_max_termweight, over every term of the query), scaled up by 1 + 1/64 so
    // that a term weighing nothing still counts; 1 where every term weighs nothing.
    double max_tw = 0;
    try {
        for (auto term = query.get_unique_terms_begin(); term != query.get_unique_terms_end(); ++term) {
            if (const auto weight = term_weight(mset, *term)) max_tw = std::max(max_tw, *weight);
        }
    } catch (const Xapian::InvalidOperationError &) {
        return SnippetWeights();  // no statistics: Xapian highlights nothing
    }
    max_tw = max_tw == 0.0 ? 1.0 : max_tw * 1.015625;
    for (const auto &term : loose) {
        const auto weight = term_weight(mset, term);
        if (!weight || term.empty()) continue;
        weights.loose.emplace(term, weights.loose_relevance.size());
        weights.loose_relevance.push_back(*weight + max_tw);
        const auto first = static_cast<unsigned char>(term[0]);
        if (first == 'Z' && term.size() > 1) weights.stem_initials.set(static_cast<unsigned char>(term[1]));
        weights.initials.set(first);
    }
    for (const auto &phrase : weights.phrases) weights.phrase_relevance.push_back(max_tw * double(phrase.size()));
    weights.usable = true;
    return weights;
}

std::optional<std::string> ascii_snippet(const SnippetWeights &weights, std::string_view text, std::size_t length,
                                         const Xapian::Stem &stemmer, const std::string &hi_start,
                                         const std::string &hi_end, const std::string &omit) {
    if (!weights.usable || (hi_start.empty() && hi_end.empty())) return std::nullopt;
    const auto *bytes = reinterpret_cast<const unsigned char *>(text.data());
    if (std::any_of(bytes, bytes + text.size(), [](unsigned char byte) { return byte >= 0x80; })) return std::nullopt;
    // What each term's and phrase's words weigh, halved while one of them is in the window, as Xapian's are.
    std::vector<double> loose = weights.loose_relevance;
    std::vector<double> phrases = weights.phrase_relevance;
    const std::size_t ring_size = weights.longest_phrase > 0 ? weights.longest_phrase - 1 : 0;
    std::vector<std::string> ring(ring_size);
    std::size_t ring_next = 0;
    SnippetWindow window(length);
    std::string term;
    std::string stem;
    ascii_words(bytes, text.size(), term, [&](const std::string &word, std::size_t end) {
        if (word.size() > longest_word) return;
        double *relevance = nullptr;
        std::size_t highlight = 0;
        for (std::size_t i = 0; i < weights.phrases.size() && !relevance; ++i) {
            const auto &phrase = weights.phrases[i];
            if (word != phrase.back()) continue;
            bool match = true;
            for (std::size_t n = phrase.size() - 1; match && n-- > 0;) {
                match = phrase[n] == ring[(n + ring_next) % ring_size];
            }
            if (match) {
                relevance = &phrases[i];
                highlight = phrase.size();
            }
        }
        const auto first = static_cast<unsigned char>(word[0]);
        if (!relevance && weights.initials[first]) {
            if (const auto found = weights.loose.find(word); found != weights.loose.end()) {
                relevance = &loose[found->second];
                highlight = 1;
            }
        }
        if (!relevance && weights.stem_initials[first]) {
            stem.assign(1, 'Z');
            stem += stemmer(word);
            if (const auto found = weights.loose.find(stem); found != weights.loose.end()) {
                relevance = &loose[found->second];
                highlight = 1;
            }
        }
        if (ring_size > 0) {
            ring[ring_next] = word;
            ring_next = (ring_next + 1) % ring_size;
        }
        window.pump(relevance, end, highlight);
    });
    window.done();
    std::string result;
    result.reserve(length + 2 * omit.size() + 8 * (hi_start.size() + hi_end.size()));
    while (window.drain(text, hi_start, hi_end, omit, result)) {
    }
    return result;
}

std::string snippet(const Xapian::MSet &mset, const SnippetTerms &terms, std::string_view text, std::size_t length,
                    const Xapian::Stem &stemmer, const std::string &hi_start, const std::string &hi_end,
                    const std::string &omit, const SnippetWeights *weights) {
    const unsigned flags = Xapian::MSet::SNIPPET_EXHAUSTIVE | Xapian::MSet::SNIPPET_CJK_NGRAM;
    const auto walk = [&](std::string_view part) {
        if (weights) {
            if (auto written = ascii_snippet(*weights, part, length, stemmer, hi_start, hi_end, omit)) return *written;
        }
        return mset.snippet(std::string(part), length, stemmer, flags, hi_start, hi_end, omit);
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
