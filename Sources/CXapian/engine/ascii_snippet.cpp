// ascii_snippet.cpp — snippet_weights and ascii_snippet: Xapian's snippet walk for ASCII text, ported. Called only
// from inside the C API's guarded entry points, so exceptions thrown here are caught there.

#include "ascii_snippet.h"

#include "query_parts.h"

#include <algorithm>
#include <array>

namespace cxapian {

namespace {

/// Xapian's character classes of the ASCII characters, read from Xapian's own tables (Xapian::Unicode): what
/// ascii_snippet() reads a text by, a byte at a time, in place of a Utf8Iterator and a look-up per character.
struct AsciiClasses {
    std::array<bool, 128> word{};      // Unicode::is_wordchar: letters, digits, '_'
    std::array<bool, 128> space{};     // Unicode::is_whitespace: ' ' and the control characters
    std::array<bool, 128> digit{};     // DECIMAL_DIGIT_NUMBER
    std::array<bool, 128> leading{};   // snippet_check_leading_nonwordchar
    std::array<bool, 128> trailing{};  // snippet_check_trailing_nonwordchar
    std::array<unsigned char, 128> lower{};
    /// U_isupper: the ASCII capitals, the only ASCII characters that lowercase to another.
    bool capital(unsigned char ch) const { return lower[ch] != ch; }
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
        if (c.capital(bytes[at])) {
            std::size_t p = at;
            do term += char(c.lower[bytes[p++]]);
            while (p != size && bytes[p] == '.' && ++p != size && c.capital(bytes[p]));
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

}  // namespace

SnippetWeights snippet_weights(const Xapian::Query &query) {
    SnippetWeights weights;
    std::vector<std::string> loose;
    if (!check_query(query, loose, weights)) return SnippetWeights();
    // Xapian weighs a term at its weight in the match (MSet::get_termweight) plus the largest of the query's, which
    // it takes as 1 where every term weighs nothing, as every term of a weightless match does (Enquire::get_mset
    // puts each of the query's terms in the statistics, and BoolWeight gives it no weight). It knows no empty term.
    constexpr double max_tw = 1.0;
    for (const auto &term : loose) {
        if (term.empty()) continue;
        weights.loose.emplace(term, weights.loose_relevance.size());
        weights.loose_relevance.push_back(max_tw);
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
        if (word.size() > longest_snippet_word) return;
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

}  // namespace cxapian
