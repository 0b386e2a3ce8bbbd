#include "word_pairs.h"

#include "query_parts.h"

#include <algorithm>
#include <cmath>

namespace cxapian {

const std::string WordPairs::detail_pair_prefix = "XWP";
const std::string WordPairs::title_pair_prefix = "XWT";

namespace {

bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }

/// The word of a positional text term and its field (true for the title: `title_prefix` + word; the detail's terms
/// are the word alone); false for any other term (a stem, "Z…", or a boolean term, both of which start upper case).
bool split_text_term(const std::string &term, const std::string &title_prefix, std::string &word, bool &title) {
    if (term.empty()) return false;
    if (!title_prefix.empty() && term.size() > title_prefix.size() &&
        term.compare(0, title_prefix.size(), title_prefix) == 0 && !is_upper(term[title_prefix.size()])) {
        word.assign(term, title_prefix.size(), std::string::npos);
        title = true;
        return true;
    }
    if (is_upper(term[0])) return false;
    word = term;
    title = false;
    return true;
}

}  // namespace

bool phrase_leaves(const Xapian::Query &query, std::vector<std::string> &terms) {
    using Q = Xapian::Query;
    if (query.get_type() != Q::OP_PHRASE) return false;
    const size_t count = query.get_num_subqueries();
    if (count < 2) return false;
    terms.clear();
    for (size_t i = 0; i < count; ++i) {
        const Q part = query.get_subquery(i);
        if (part.get_type() != Q::LEAF_TERM || part.get_terms_begin() == part.get_terms_end()) return false;
        terms.push_back(*part.get_terms_begin());
    }
    return true;
}

bool is_exact_phrase(const Xapian::Query &query) {
    const auto window = phrase_window(query);
    return query.get_type() == Xapian::Query::OP_PHRASE && window && *window == query.get_num_subqueries();
}

WordPairs::WordPairs(const std::string &list, std::string title_prefix) : title_prefix_(std::move(title_prefix)) {
    size_t start = 0;
    while (start < list.size() && numbers_.size() < max_words) {
        size_t end = list.find('\n', start);
        if (end == std::string::npos) end = list.size();
        if (end > start) numbers_.emplace(list.substr(start, end - start), static_cast<uint32_t>(numbers_.size()));
        start = end + 1;
    }
}

bool WordPairs::split(const std::string &term, std::string &word, bool &title) const {
    return split_text_term(term, title_prefix_, word, title);
}

void WordPairs::append_number(std::string &term, uint32_t number) {
    // Prefix-free: a byte of `one_byte_codes` alone, or a space and one of them.
    if (number >= one_byte_codes) {
        term += ' ';
        number -= one_byte_codes;
    }
    // Printable ASCII but the space (0x21–0x7E), then 0x80–0xFF: no control character, no newline.
    term += static_cast<char>(number < 94 ? 0x21 + number : 0x80 + (number - 94));
}

std::string WordPairs::term(uint32_t first, uint32_t second, bool title) {
    std::string pair = title ? title_pair_prefix : detail_pair_prefix;
    append_number(pair, first);
    append_number(pair, second);
    return pair;
}

void WordPairs::add_to(Xapian::Document &document) const {
    if (numbers_.empty()) return;
    struct Occurrence {
        Xapian::termpos position;
        bool title;
        uint32_t number;
    };
    std::vector<Occurrence> occurrences;
    std::string word;
    bool title = false;
    for (auto term = document.termlist_begin(); term != document.termlist_end(); ++term) {
        if (!split(*term, word, title)) continue;
        const auto found = numbers_.find(word);
        if (found == numbers_.end()) continue;
        for (auto position = term.positionlist_begin(); position != term.positionlist_end(); ++position) {
            occurrences.push_back({*position, title, found->second});
        }
    }
    std::sort(occurrences.begin(), occurrences.end(),
              [](const Occurrence &a, const Occurrence &b) { return a.position < b.position; });
    // Several terms can share a position (a CJK span's unigrams and bigrams): every term at p pairs with every term
    // of its field at p + 1.
    size_t next = 0;  // the first occurrence past the current position
    for (size_t i = 0; i < occurrences.size(); ++i) {
        const Xapian::termpos position = occurrences[i].position;
        if (next <= i) next = i + 1;
        while (next < occurrences.size() && occurrences[next].position == position) ++next;
        for (size_t j = next; j < occurrences.size() && occurrences[j].position == position + 1; ++j) {
            if (occurrences[j].title == occurrences[i].title) {
                document.add_boolean_term(term(occurrences[i].number, occurrences[j].number, occurrences[i].title));
            }
        }
    }
}

Xapian::Query WordPairs::filter_phrases(const Xapian::Query &query) const {
    Xapian::Query filtered;
    return !numbers_.empty() && filter(query, filtered) ? filtered : query;
}

bool WordPairs::filter(const Xapian::Query &query, Xapian::Query &filtered) const {
    using Q = Xapian::Query;
    switch (query.get_type()) {
        case Q::OP_PHRASE: {
            std::vector<std::string> terms;
            if (!phrase_leaves(query, terms)) return false;
            std::vector<std::string> pairs;
            std::string first_word, second_word;
            bool first_title = false, second_title = false;
            for (size_t i = 0; i + 1 < terms.size(); ++i) {
                if (!split(terms[i], first_word, first_title) || !split(terms[i + 1], second_word, second_title) ||
                    first_title != second_title) {
                    continue;
                }
                const auto first = numbers_.find(first_word);
                const auto second = numbers_.find(second_word);
                if (first == numbers_.end() || second == numbers_.end()) continue;
                std::string pair = term(first->second, second->second, first_title);
                if (std::find(pairs.begin(), pairs.end(), pair) == pairs.end()) pairs.push_back(std::move(pair));
            }
            // Checked last: a phrase's description costs more than the look-ups above, which rule out most phrases.
            if (pairs.empty() || !is_exact_phrase(query)) return false;
            if (terms.size() == 2) {
                // The pair's documents are the phrase's: its words, weighed as the phrase weighs them, and no
                // positions read.
                const Q words(Q::OP_AND, query.get_subquery(0), query.get_subquery(1));
                filtered = Q(Q::OP_FILTER, words, Q(pairs[0]));
                return true;
            }
            const Q filter = pairs.size() == 1 ? Q(pairs[0]) : Q(Q::OP_AND, pairs.begin(), pairs.end());
            filtered = Q(Q::OP_FILTER, query, filter);
            return true;
        }
        case Q::OP_AND:
        case Q::OP_OR:
        case Q::OP_FILTER:
        case Q::OP_AND_NOT:
        case Q::OP_AND_MAYBE:
        case Q::OP_XOR:
        case Q::OP_MAX:
            return rewrite_subqueries(query, [this](const Q &part, Q &out) { return filter(part, out); }, filtered);
        default:
            return false;
    }
}

void WordSample::add(const Xapian::Document &document) {
    std::vector<std::string> words;
    std::string word;
    bool title = false;
    for (auto term = document.termlist_begin(); term != document.termlist_end(); ++term) {
        if (split_text_term(*term, title_prefix_, word, title) && term.positionlist_count() > 0) words.push_back(word);
    }
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    for (const auto &distinct : words) ++frequencies_[distinct];
    ++documents_;
}

std::string WordSample::choose(double min_share, Xapian::doccount min_documents, size_t max_words) const {
    const double threshold = std::max<double>(min_documents, std::ceil(min_share * documents_));
    std::vector<std::pair<std::string, Xapian::doccount>> common;
    for (const auto &entry : frequencies_) {
        if (entry.second >= threshold) common.push_back(entry);
    }
    std::sort(common.begin(), common.end(), [](const auto &a, const auto &b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    if (common.size() > max_words) common.resize(max_words);
    std::string list;
    for (const auto &entry : common) {
        if (!list.empty()) list += '\n';
        list += entry.first;
    }
    return list;
}

}  // namespace cxapian
