// kept_tables.h — tables a long-lived reader keeps per index revision, shared by the readers of one process (internal
// to CXapian).

#ifndef CXAPIAN_ENGINE_KEPT_TABLES_H
#define CXAPIAN_ENGINE_KEPT_TABLES_H

#include "changes.h"

#include <xapian.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace cxapian {

/// The tables made in this process, for every reader of the same database at the same revision to use: a server's
/// sessions each hold a reader of one index, and without this each made (and held) its own copy of every table at
/// every revision. Held weakly, but for the newest table of each name and path, held until a newer one comes: a
/// table made off the request path (TableMaker) waits there for the readers that asked for it.
class SharedTables {
  public:
    /// What identifies the table `name` of `database` as it is now, given where it was opened (`path`): the path,
    /// the database's UUID (a rebuild's new generation has a new one) and its revision, document count and last
    /// docid (two copies of one index share a UUID, and could reach one revision with different documents).
    static std::string key(const std::string &name, const std::string &path, const Xapian::Database &database);
    /// The table kept under `key`, if a reader still holds it or it is its name's and path's newest.
    static std::shared_ptr<const void> find(const std::string &key);
    /// Keeps `table` under `key` for other readers and returns it; or the table already kept there (made meanwhile
    /// by another reader), which is the one to use.
    static std::shared_ptr<const void> keep(const std::string &key, std::shared_ptr<const void> table);
    /// The newest table kept of `name` for the database opened at `path`, of whatever revision or UUID, or nullptr:
    /// what a table of a later revision may be patched from. A name is always one type of table.
    static std::shared_ptr<const void> newest(const std::string &name, const std::string &path);
};

/// Makes tables on a thread of its own, one at a time, so that no search waits while a table is read: reading one
/// grows with the index, and an index written to often reaches new revisions, whose tables are new, as often
/// (docs/performance.md, "No long tail"). A job's failure (the revision gone, the database moved) only means no
/// table: the searches go on without one, as they do until it is made.
class TableMaker {
  public:
    /// Runs `job` on the maker's thread, unless a job under `key` is already waiting or running. Nothing is run once
    /// the process has begun to exit, and an exit waits for the job running then (one table's reading).
    static void schedule(const std::string &key, std::function<void()> job);
    /// Returns once no job is waiting or running (tests and benchmarks that need the tables made).
    static void wait();
};

/// A string set on one thread and read on others (RevisionTableCache's unfit database).
class Unfit {
  public:
    void store(std::string uuid) {
        std::lock_guard<std::mutex> lock(mutex_);
        uuid_ = std::move(uuid);
    }
    std::string load() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return uuid_;
    }

  private:
    mutable std::mutex mutex_;
    std::string uuid_;
};

/// A table made from one database at one revision (TitleWords, DocLengths, a sort's keys, the packed positions), kept
/// by a reader for its searches until the revision moves on; safe to use from several threads.
///
/// A table is asked for on the second search at a revision that needs it, not the first: reading a whole value slot
/// or length list costs several searches' worth of seeks, which a reader that searches once, or whose index moves on
/// after each search, would pay for nothing. It is then made by the TableMaker from a database of its own (the
/// index's newest revision), and the searches at that revision use it from the first after it is made
/// (docs/decisions/0012-tables-off-the-request-path.md). A table another reader of the same database has made at
/// that revision (SharedTables) is used at once, made by neither.
///
/// Once any reader of the process has a table of the index, the next revision's is asked for at its first search:
/// the new table is the newest made (this reader's last, or another's since) patched with the documents the commits
/// between them wrote (RecordingWriter, changed_since), which costs a copy of the table and a read of those
/// documents, not a read of every document; where the commits are not all known, it is read whole
/// (docs/decisions/0017-tables-that-follow-the-index.md). The base is shared, not each reader's own: a server's
/// sessions each search at only some revisions, and one that held no table at the last would read every document.
template <typename Table> class RevisionTableCache {
  public:
    /// The table `name` for `database` (opened at `path`) as it is now, made by `make(database)`, or by
    /// `patch(previous, database, changed)` from the table of an earlier revision and the documents written since
    /// (either may give nullptr: no table fits; they must hold nothing of the caller's, as they run later on the
    /// maker's thread); nullptr until a table for this revision is made, and when the docids are mostly holes (more
    /// than four per document: a table indexed by docid would be mostly empty).
    template <typename Make, typename Patch>
    std::shared_ptr<const Table> get(const Xapian::Database &database, const std::string &name,
                                     const std::string &path, Make make, Patch patch) {
        const Xapian::rev revision = database.get_revision();
        std::lock_guard<std::mutex> lock(mutex_);
        if (made_ && revision_ == revision) return table_;
        const bool first_search = !seen_ || revision_ != revision;
        if (first_search) {
            if (made_ && table_ != nullptr) previous_ = table_;  // the last revision's, to patch
            seen_ = true;
            asked_ = false;
            revision_ = revision;
            key_ = SharedTables::key(name, path, database);
        }
        table_ = std::static_pointer_cast<const Table>(SharedTables::find(key_));
        made_ = table_ != nullptr;
        if (made_) previous_ = nullptr;
        // A table to patch is asked for at once; one to read whole, on the second search.
        if (made_ || asked_) return table_;
        if (first_search && previous_ == nullptr && SharedTables::newest(name, path) == nullptr) return table_;
        asked_ = true;
        if (too_sparse(database) || unfit_->load() == database.get_uuid()) {
            made_ = true;  // found not to fit: once per revision
            return nullptr;
        }
        TableMaker::schedule(key_, [name, path, make, patch, previous = previous_, counter = made_count_,
                                    unfit = unfit_]() {
            const Xapian::Database newest(path);
            const std::string key = SharedTables::key(name, path, newest);
            if (SharedTables::find(key) != nullptr || too_sparse(newest)) return;
            // The base: the newer of this reader's last table and the newest any reader has now.
            const std::shared_ptr<const Table> base =
                later(later(nullptr, previous, newest),
                      std::static_pointer_cast<const Table>(SharedTables::newest(name, path)), newest);
            std::vector<Xapian::docid> changed;
            const bool patchable = base != nullptr && changed_since(newest, base->revision(), changed);
            std::shared_ptr<const Table> table;
            if (patchable) {
                table = patch(*base, newest, changed);
            } else {
                table = make(newest);
                // Read whole and found not to fit: not read again for this database (its UUID), whose next
                // revisions would not fit either.
                if (table == nullptr) unfit->store(newest.get_uuid());
            }
            if (table == nullptr) return;
            counter->fetch_add(1);
            SharedTables::keep(key, table);
        });
        return nullptr;
    }

    /// How many tables were made at this cache's asking (not taken from another reader's), patched or read whole.
    uint64_t tables_made() const { return made_count_->load(); }

  private:
    /// `candidate` if it is of `database` (its UUID), no later than its revision and later than `base`; else `base`.
    static std::shared_ptr<const Table> later(std::shared_ptr<const Table> base, std::shared_ptr<const Table> candidate,
                                              const Xapian::Database &database) {
        if (candidate == nullptr || candidate->uuid() != database.get_uuid() ||
            candidate->revision() > database.get_revision()) {
            return base;
        }
        return base == nullptr || candidate->revision() > base->revision() ? candidate : base;
    }

    static bool too_sparse(const Xapian::Database &database) {
        return database.get_lastdocid() > 4 * uint64_t(database.get_doccount()) + 4096;
    }

    std::mutex mutex_;
    std::shared_ptr<const Table> table_;
    /// The table of the revision before, until this one's is made: what a patch starts from.
    std::shared_ptr<const Table> previous_;
    std::string key_;
    Xapian::rev revision_ = 0;
    bool seen_ = false;
    bool made_ = false;
    bool asked_ = false;
    /// Shared with the jobs asked for, which may finish after the cache is gone.
    std::shared_ptr<std::atomic<uint64_t>> made_count_ = std::make_shared<std::atomic<uint64_t>>(0);
    /// The UUID of the database whose table, read whole, did not fit (a slot with a long value, positions past the
    /// table's cap): not asked for again. Shared with the jobs, like made_count_.
    std::shared_ptr<Unfit> unfit_ = std::make_shared<Unfit>();
};

/// `did`'s document in `database`, or none (deleted since the table a patch starts from was made).
std::optional<Xapian::Document> document_if_any(const Xapian::Database &database, Xapian::docid did);

/// A flat table of one byte string per docid, patched (SlotValues): docid d's bytes are
/// `bytes[offsets[d], offsets[d + 1])`. Fills `offsets` (sized one past `database`'s last docid, plus one) and `bytes`
/// from the previous revision's (`previous_offsets`, `previous_bytes`), copying each run of unchanged documents at
/// once and taking each of `changed` (ascending) from `read(document)` (its document, or none for one deleted);
/// false, the table not to be used, if `read` refuses one (`accept(bytes)` false) or the bytes would pass `max_bytes`.
template <typename Read, typename Accept>
bool patch_byte_table(const std::vector<uint32_t> &previous_offsets, const std::string &previous_bytes,
                      const Xapian::Database &database, const std::vector<Xapian::docid> &changed, size_t max_bytes,
                      Read read, Accept accept, std::vector<uint32_t> &offsets, std::string &bytes) {
    offsets.assign(static_cast<size_t>(database.get_lastdocid()) + 2, 0);
    bytes.reserve(previous_bytes.size());
    auto change = changed.begin();
    for (size_t did = 1; did + 1 < offsets.size(); ++did) {
        offsets[did] = static_cast<uint32_t>(bytes.size());
        while (change != changed.end() && *change < did) ++change;
        if (change != changed.end() && *change == did) {
            const std::string entry = read(document_if_any(database, static_cast<Xapian::docid>(did)));
            if (!accept(entry) || bytes.size() + entry.size() > max_bytes) return false;
            bytes += entry;
            continue;
        }
        // The run of unchanged documents up to the next change, copied at once.
        const size_t run_end = std::min<size_t>(change != changed.end() ? *change : offsets.size() - 1,
                                                previous_offsets.size() - 1);
        if (did >= run_end) continue;
        const size_t from = previous_offsets[did];
        const size_t to = previous_offsets[run_end];
        if (bytes.size() + (to - from) > max_bytes) return false;
        const size_t start = bytes.size();
        for (size_t d = did; d < run_end; ++d) offsets[d] = static_cast<uint32_t>(start + (previous_offsets[d] - from));
        bytes.append(previous_bytes, from, to - from);
        did = run_end - 1;
    }
    offsets.back() = static_cast<uint32_t>(bytes.size());
    return true;
}

/// `table` if it was made from `database` as it is now (one database at its current revision), else nullptr: a table
/// is not used for a multi-database's part, nor by a reader reopened since it was made.
template <typename Table> const Table *table_of(const Table *table, const Xapian::Database &database) {
    return table != nullptr && database.size() == 1 && table->revision() == database.get_revision() ? table : nullptr;
}

/// Every document's length (what BM25 normalises by: its detail's words), in one table: a long-lived reader's
/// WordSources look a length up by docid instead of moving the database's length list forward to each match, which
/// decodes every length on the way (a large part of an OR search's match; docs/decisions/0006-reader-tables.md).
class DocLengths {
  public:
    /// A document the table does not hold: its length is read from the database.
    static constexpr uint32_t unknown = UINT32_MAX;

    /// Reads the length of every document of `database` at its current revision.
    explicit DocLengths(const Xapian::Database &database);
    /// `previous` (of an earlier revision of `database`) with the lengths of the documents `changed` since read anew.
    DocLengths(const DocLengths &previous, const Xapian::Database &database, const std::vector<Xapian::docid> &changed);

    Xapian::rev revision() const { return revision_; }
    const std::string &uuid() const { return uuid_; }
    /// The length of `did`, or `unknown`.
    uint32_t length(Xapian::docid did) const { return did < lengths_.size() ? lengths_[did] : unknown; }

  private:
    Xapian::rev revision_;
    std::string uuid_;
    std::vector<uint32_t> lengths_;
};

/// Every document's number of distinct title words (the value slot the title similarity reads), in one table:
/// a long-lived reader's searches look a count up by docid instead of seeking through the value stream for each
/// document with a query word in its title. That seek decoded the stream's chunk up to the document every time, a
/// large part of a one-word search's match (docs/decisions/0006-reader-tables.md). A table is read in
/// one pass over the stream, for one revision of one database (not a multi-database's).
class TitleWords {
  public:
    /// Counts of at least this many are not kept: such documents are read from the value stream.
    static constexpr uint16_t unknown = 0xFFFF;

    /// Reads `slot` of every document of `database` at its current revision.
    TitleWords(const Xapian::Database &database, Xapian::valueno slot);
    /// `previous` (of an earlier revision of `database`) with the counts of the documents `changed` since read anew.
    TitleWords(const TitleWords &previous, const Xapian::Database &database, Xapian::valueno slot,
               const std::vector<Xapian::docid> &changed);

    Xapian::rev revision() const { return revision_; }
    const std::string &uuid() const { return uuid_; }
    /// The count for `did`, or `unknown`.
    uint16_t count(Xapian::docid did) const { return did < counts_.size() ? counts_[did] : uint16_t(0); }

  private:
    /// What the table keeps of a count stored as `value`.
    static uint16_t kept(const std::string &value);

    Xapian::rev revision_;
    std::string uuid_;
    std::vector<uint16_t> counts_;
};

/// The title-word table of one reader (see RevisionTableCache).
using TitleWordsCache = RevisionTableCache<TitleWords>;

}  // namespace cxapian

#endif
