// term_classes.h — which field a term of the index belongs to (internal to CXapian).

#ifndef CXAPIAN_ENGINE_TERM_CLASSES_H
#define CXAPIAN_ENGINE_TERM_CLASSES_H

#include <xapian.h>

#include <string>

namespace cxapian {

inline bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }

struct Classifier {
    std::string prefix;

    /// A title term: prefix + word, or "Z" + prefix + stem.
    bool is_title(const std::string &term) const {
        if (term.compare(0, prefix.size(), prefix) == 0) {
            return term.size() > prefix.size() && !is_upper(term[prefix.size()]);
        }
        return term.size() > prefix.size() + 1 && term[0] == 'Z' && term.compare(1, prefix.size(), prefix) == 0 &&
               !is_upper(term[prefix.size() + 1]);
    }

    /// A detail term: a word (lowercase, a digit, or non-ASCII first), or "Z" + its stem.
    bool is_detail(const std::string &term) const {
        if (term.empty()) return false;
        if (term[0] == 'Z') return term.size() > 1 && !is_upper(term[1]);
        return !is_upper(term[0]);
    }

    /// The title term for a detail term.
    std::string twin(const std::string &detail) const {
        if (detail[0] == 'Z') return "Z" + prefix + detail.substr(1);
        return prefix + detail;
    }
};

inline bool leaf_term(const Xapian::Query &query, std::string &term) {
    if (query.get_type() != Xapian::Query::LEAF_TERM) return false;
    auto it = query.get_terms_begin();
    if (it == query.get_terms_end()) return false;
    term = *it;
    return true;
}

}  // namespace cxapian

#endif
