// term_frequencies.h — the document frequencies one match looks up, each once (internal to CXapian).
//
// Glass keeps no block cache: each get_termfreq() sends a fresh cursor down the posting table, a 16 KiB pread for the
// leaf and more for branches off the table's own path. The fielded ranking's rewrite weighs a word by the frequency
// of its class in each field (StemTerms::frequency), and its title similarity by the title term's class again; a
// search that finds few hits then asks whether each of its words is known at all (for a spelling correction). A
// TermFrequencies reads each term once; the match's result keeps it, so that what is asked after the match is
// answered from what the rewrite read, or from the match's own statistics (every term the query names), not the index.

#ifndef CXAPIAN_ENGINE_TERM_FREQUENCIES_H
#define CXAPIAN_ENGINE_TERM_FREQUENCIES_H

#include <xapian.h>

#include <string>
#include <unordered_map>
#include <utility>

namespace cxapian {

/// The document frequencies of terms in one database at one revision, each read once. Not thread-safe: one match's.
class TermFrequencies {
  public:
    explicit TermFrequencies(Xapian::Database database) : database_(std::move(database)) {}

    /// How many documents hold `term`.
    Xapian::doccount of(const std::string &term) {
        const auto known = known_.find(term);
        if (known != known_.end()) return known->second;
        const Xapian::doccount frequency = database_.get_termfreq(term);
        known_.emplace(term, frequency);
        return frequency;
    }

    /// The frequency of `term` if it was read, else nullptr.
    const Xapian::doccount *known(const std::string &term) const {
        const auto known = known_.find(term);
        return known != known_.end() ? &known->second : nullptr;
    }

  private:
    Xapian::Database database_;
    std::unordered_map<std::string, Xapian::doccount> known_;
};

}  // namespace cxapian

#endif
