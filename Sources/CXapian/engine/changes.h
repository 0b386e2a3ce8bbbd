// changes.h — the documents each commit wrote, kept in the index for its readers' tables (internal to CXapian).

#ifndef CXAPIAN_ENGINE_CHANGES_H
#define CXAPIAN_ENGINE_CHANGES_H

#include <xapian.h>

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace cxapian {

/// A writable database whose commits each record the documents they added, replaced or deleted, in its metadata
/// (under `key`), so that a reader holding a table of every document at an earlier revision (kept_tables.h) can patch
/// it with those documents instead of reading every document again
/// (docs/decisions/0017-tables-that-follow-the-index.md). Every write of Spotlite's goes through one (the C API's
/// writable database).
///
/// The key holds the UUID of the database that wrote it (a length and the bytes: a compacted copy, which has a new
/// one, starts afresh instead of trusting its source's records), then the last commits' records, oldest first: each
/// a varint of the revision the commit made, a varint of its documents' count plus one (0: too many to list), and
/// their docids, ascending, as varints of the distance from the one before. A commit no record names (made by a
/// writer that keeps none, or by Xapian's own flush of a large batch) leaves a gap, and a reader whose table is from
/// before the gap reads every document again.
class RecordingWriter {
  public:
    static const std::string key;
    /// A commit of more documents than this is recorded as too many to list: patching a table with them costs about
    /// what reading it again does.
    static constexpr size_t most_listed = 4096;
    /// The key keeps at most this many records, and this many docids in all.
    static constexpr size_t most_records = 64;
    static constexpr size_t most_docids = 16384;

    explicit RecordingWriter(Xapian::WritableDatabase database) : database_(std::move(database)) {}

    /// The database, to read, and to write what changed() then notes.
    Xapian::WritableDatabase &database() { return database_; }
    /// Notes a change made through database() that touches no document (metadata, spellings, term numbers): the
    /// commit is recorded all the same.
    void changed() { dirty_ = true; }

    /// Xapian's replace_document by unique term (which also deletes the term's other documents), add_document and
    /// delete_document by term, noted.
    Xapian::docid replace(const std::string &unique_term, const Xapian::Document &document);
    Xapian::docid add(const Xapian::Document &document);
    void remove(const std::string &term);
    void set_metadata(const std::string &key, const std::string &value);

    /// Records what was noted, and commits it. A failed commit leaves its changes pending and no longer listed, so
    /// the next commit is recorded as too many to list.
    void commit();
    /// Xapian's transactions: a flushed one commits what came before it first (as a commit of its own, recorded)
    /// and is recorded when it commits; an unflushed one's changes join the next commit's; a cancelled one's are
    /// forgotten.
    void begin_transaction(bool flushed);
    void commit_transaction();
    void cancel_transaction();

  private:
    std::set<Xapian::docid> &noted() { return in_transaction_ ? transaction_ : pending_; }
    void wrote(Xapian::docid did);
    /// Notes every document `term` indexes, about to be replaced or deleted.
    void writing(const std::string &term);
    bool dirty() const { return dirty_ || too_many_ || !pending_.empty() || !transaction_.empty(); }
    /// Writes the record of the commit about to be made (the database's next revision), and forgets what was noted.
    void record();
    /// Runs Xapian's `commit` (a commit or a transaction's), recording it first when anything was noted.
    template <typename Commit> void recorded(Commit commit);

    Xapian::WritableDatabase database_;
    std::set<Xapian::docid> pending_;
    std::set<Xapian::docid> transaction_;
    bool in_transaction_ = false;
    bool flushed_transaction_ = false;
    bool dirty_ = false;
    /// More than most_listed noted, or a commit lost: the commit is recorded as too many.
    bool too_many_ = false;
};

/// The documents written between revision `since` and `database`'s current revision (one database), ascending, from
/// the RecordingWriter's records: false when they are not all known (a gap, a commit of too many, a revision older
/// than the key's records, a record that does not parse, another database's revision).
bool changed_since(const Xapian::Database &database, Xapian::rev since, std::vector<Xapian::docid> &documents);

}  // namespace cxapian

#endif
