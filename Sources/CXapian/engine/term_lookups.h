// term_lookups.h — the document frequencies and metadata entries one match looks up, each once, and those a
// long-lived reader's searches share at one revision (internal to CXapian).
//
// Glass keeps no block cache: each get_termfreq() or get_metadata() sends a fresh cursor down its table, a 16 KiB
// pread for the leaf and more for branches off the table's own path. The fielded ranking's rewrite weighs a word by
// the frequency of its class in each field (StemTerms::frequency), and its title similarity by the title term's class
// again; the word's posting source asks again when it opens its lists, and a phrase's reader of packed positions asks
// whether each term is there and which number it was given (a metadata entry); a search that finds few hits then
// asks whether each of its words is known at all (for a spelling correction). A TermLookups reads each once; the
// match's result keeps it, so that what is asked after the match is answered from what the rewrite read, or from the
// match's own statistics (every term the query names), not the index. A long-lived reader's searches at one revision
// also share what they have read (RevisionLookups): a word searched again, or a filter every search names, is not
// looked up again until the index moves on.

#ifndef CXAPIAN_ENGINE_TERM_LOOKUPS_H
#define CXAPIAN_ENGINE_TERM_LOOKUPS_H

#include <xapian.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

namespace cxapian {

/// The frequencies and metadata entries the searches of one database at one revision have read, for the next searches
/// there: a server's sessions share one through SharedTables (its key names the database and the revision). Safe to
/// use from several threads. It holds at most `capacity` entries of each kind, so that searches of ever new words cost
/// a bounded memory; past it, an entry is read from the index as without it.
class RevisionLookups {
  public:
    static constexpr size_t capacity = size_t(1) << 16;

    std::optional<Xapian::doccount> frequency(const std::string &term) const { return find(frequencies_, term); }
    void add_frequency(const std::string &term, Xapian::doccount frequency) const {
        add(frequencies_, term, frequency);
    }

    std::optional<std::string> metadata(const std::string &key) const { return find(metadata_, key); }
    void add_metadata(const std::string &key, const std::string &value) const { add(metadata_, key, value); }

  private:
    template <typename Value>
    std::optional<Value> find(const std::unordered_map<std::string, Value> &map, const std::string &key) const {
        std::lock_guard<std::mutex> lock(mutex_);
        const auto known = map.find(key);
        if (known == map.end()) return std::nullopt;
        return known->second;
    }

    template <typename Value>
    void add(std::unordered_map<std::string, Value> &map, const std::string &key, const Value &value) const {
        std::lock_guard<std::mutex> lock(mutex_);
        if (map.size() < capacity) map.emplace(key, value);
    }

    mutable std::mutex mutex_;
    mutable std::unordered_map<std::string, Xapian::doccount> frequencies_;
    mutable std::unordered_map<std::string, std::string> metadata_;
};

/// The document frequencies and metadata entries of one database at one revision, each read once (and, given
/// `shared`, from and into what other searches at that revision read). Not thread-safe: one match's.
class TermLookups {
  public:
    explicit TermLookups(Xapian::Database database, std::shared_ptr<const RevisionLookups> shared = nullptr)
        : database_(std::move(database)), single_(database_.size() == 1),
          revision_(single_ ? database_.get_revision() : 0), shared_(std::move(shared)) {}

    /// How many documents hold `term`.
    Xapian::doccount of(const std::string &term) {
        const auto known = frequencies_.find(term);
        if (known != frequencies_.end()) return known->second;
        std::optional<Xapian::doccount> frequency = shared_ ? shared_->frequency(term) : std::nullopt;
        if (!frequency) {
            frequency = database_.get_termfreq(term);
            if (shared_) shared_->add_frequency(term, *frequency);
        }
        frequencies_.emplace(term, *frequency);
        return *frequency;
    }

    /// The frequency of `term` if this match read it, else nullptr.
    const Xapian::doccount *known(const std::string &term) const {
        const auto known = frequencies_.find(term);
        return known != frequencies_.end() ? &known->second : nullptr;
    }

    /// The database's metadata entry `key` ("" for none).
    const std::string &metadata(const std::string &key) {
        const auto known = metadata_.find(key);
        if (known != metadata_.end()) return known->second;
        std::optional<std::string> value = shared_ ? shared_->metadata(key) : std::nullopt;
        if (!value) {
            value = database_.get_metadata(key);
            if (shared_) shared_->add_metadata(key, *value);
        }
        return metadata_.emplace(key, std::move(*value)).first->second;
    }

    /// Whether these are the lookups of `database` as a posting source is given it: one database (a part of a
    /// multi-database has frequencies of its own) at the revision read.
    bool of_database(const Xapian::Database &database) const {
        return single_ && database.size() == 1 && database.get_revision() == revision_;
    }

  private:
    Xapian::Database database_;
    bool single_;
    /// Read of a single database only: a multi-database has no one revision (Xapian throws on asking).
    Xapian::rev revision_;
    std::shared_ptr<const RevisionLookups> shared_;
    std::unordered_map<std::string, Xapian::doccount> frequencies_;
    std::unordered_map<std::string, std::string> metadata_;
};

}  // namespace cxapian

#endif
