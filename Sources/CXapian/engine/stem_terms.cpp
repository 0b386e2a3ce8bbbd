#include "stem_terms.h"

#include "query_parts.h"

#include <algorithm>

namespace cxapian {

const std::string StemTerms::overlap_prefix = "XZ";

namespace {

bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }

/// A cache past this many words is emptied (a whole dictionary is about 100,000).
constexpr size_t kMaxCachedWords = 1 << 20;

}  // namespace

StemTerms::StemTerms(const std::string &language, std::string title_prefix)
    : prunes_(!language.empty() && language != "none"), title_prefix_(std::move(title_prefix)) {
    if (prunes_) stemmer_ = Xapian::Stem(language);
}

bool StemTerms::split(const std::string &term, std::string &word, bool &title) const {
    if (term.size() < 2 || term[0] != 'Z') return false;
    if (!is_upper(term[1])) {
        word.assign(term, 1, std::string::npos);
        title = false;
        return true;
    }
    const size_t start = 1 + title_prefix_.size();
    if (title_prefix_.empty() || term.size() <= start || term.compare(1, title_prefix_.size(), title_prefix_) != 0 ||
        is_upper(term[start])) {
        return false;
    }
    word.assign(term, start, std::string::npos);
    title = true;
    return true;
}

bool StemTerms::is_own_stem(const std::string &word) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = own_stems_.find(word);
    if (found != own_stems_.end()) return found->second;
    if (own_stems_.size() >= kMaxCachedWords) own_stems_.clear();
    const bool own = stemmer_(word) == word;
    own_stems_.emplace(word, own);
    return own;
}

void StemTerms::prune(Xapian::Document &document, const std::string &length_term) const {
    if (!prunes_) return;
    // The document's terms in order, with their wdf (a word's term is looked up by binary search), and how many of the
    // title's words have each stem (a title's terms carry no wdf to tell its other forms by).
    std::vector<std::pair<std::string, Xapian::termcount>> terms;
    std::unordered_map<std::string, int> title_stems;
    for (auto term = document.termlist_begin(); term != document.termlist_end(); ++term) {
        terms.emplace_back(*term, term.get_wdf());
        const std::string &name = terms.back().first;
        if (!title_prefix_.empty() && name.size() > title_prefix_.size() &&
            name.compare(0, title_prefix_.size(), title_prefix_) == 0 && !is_upper(name[title_prefix_.size()])) {
            std::lock_guard<std::mutex> lock(mutex_);
            ++title_stems[stemmer_(name.substr(title_prefix_.size()))];
        }
    }
    auto wdf_of = [&terms](const std::string &name) -> long {
        const auto at = std::lower_bound(terms.begin(), terms.end(), name,
                                         [](const auto &entry, const std::string &key) { return entry.first < key; });
        return at != terms.end() && at->first == name ? static_cast<long>(at->second) : -1;
    };
    std::vector<std::pair<std::string, Xapian::termcount>> left_out;
    std::vector<std::string> overlaps;
    std::string word;
    bool title = false;
    for (const auto &[name, wdf] : terms) {
        if (!split(name, word, title)) continue;
        const long word_wdf = wdf_of(title ? title_prefix_ + word : word);
        if (word_wdf < 0 || !is_own_stem(word)) continue;
        // Another form of the word in the field: the stem term holds more than the word's term (a title's words are
        // counted by stem instead, its terms having no wdf).
        const bool other_forms = title ? title_stems[word] > 1 : static_cast<long>(wdf) > word_wdf;
        if (other_forms) {
            overlaps.push_back(overlap_prefix + name);
        } else {
            left_out.emplace_back(name, wdf);
        }
    }
    Xapian::termcount length = 0;
    for (const auto &[name, wdf] : left_out) {
        document.remove_term(name);
        length += wdf;
    }
    if (length > 0) document.add_term(length_term, length);
    for (const auto &overlap : overlaps) document.add_boolean_term(overlap);
}

StemTerms::Class StemTerms::class_of(const std::string &term) const {
    std::string word;
    bool title = false;
    if (!prunes_ || !split(term, word, title) || !is_own_stem(word)) return {{term}, ""};
    return {{term, title ? title_prefix_ + word : word}, overlap_prefix + term};
}

Xapian::doccount StemTerms::frequency(TermLookups &frequencies, const Class &term_class) {
    Xapian::doccount sum = 0;
    for (const auto &term : term_class.terms) sum += frequencies.of(term);
    const Xapian::doccount overlap = term_class.overlap.empty() ? 0 : frequencies.of(term_class.overlap);
    return sum >= overlap ? sum - overlap : 0;
}

Xapian::Query StemTerms::expand(const Xapian::Query &query) const {
    using Q = Xapian::Query;
    if (!prunes_) return query;
    switch (query.get_type()) {
        case Q::LEAF_TERM: {
            if (query.get_terms_begin() == query.get_terms_end()) return query;
            const Class term_class = class_of(*query.get_terms_begin());
            if (term_class.terms.size() < 2) return query;
            // The word's term only where the stem term is not: each document once, with the wdf it had.
            const Q word_only(Q::OP_AND_NOT, Q(term_class.terms[1]), Q(term_class.overlap));
            return Q(Q::OP_OR, Q(term_class.terms[0]), word_only);
        }
        default: {
            if (!combines_subqueries(query.get_type())) return query;
            const size_t count = query.get_num_subqueries();
            std::vector<Q> parts;
            parts.reserve(count);
            for (size_t i = 0; i < count; ++i) parts.push_back(expand(query.get_subquery(i)));
            return Q(query.get_type(), parts.begin(), parts.end());
        }
    }
}

}  // namespace cxapian
