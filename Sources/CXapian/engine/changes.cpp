// changes.cpp — RecordingWriter and changed_since. Called only from inside the C API's guarded entry points, so
// exceptions thrown here are caught there.

#include "changes.h"

#include "varint.h"

#include <limits>

namespace cxapian {

const std::string RecordingWriter::key = "spotlite.changes";

namespace {

/// One commit's record: its revision, and its documents (none listed when `too_many`).
struct Record {
    uint32_t revision = 0;
    bool too_many = false;
    std::vector<Xapian::docid> documents;
};

/// The records of `stored` if it was written by the database of `uuid`; empty for another's, or for one that does
/// not parse (a reader then reads every document; a writer starts afresh).
std::vector<Record> parse(const std::string &stored, const std::string &uuid) {
    std::vector<Record> records;
    const char *at = stored.data();
    const char *const end = at + stored.size();
    uint32_t length = 0;
    if (!read_varint(at, end, length) || length != uuid.size() || size_t(end - at) < length ||
        std::string(at, length) != uuid) {
        return {};
    }
    at += length;
    while (at != end) {
        Record record;
        uint32_t count = 0;
        if (!read_varint(at, end, record.revision) || !read_varint(at, end, count)) return {};
        if (!records.empty() && record.revision <= records.back().revision) return {};
        record.too_many = count == 0;
        if (count > RecordingWriter::most_docids + 1) return {};
        Xapian::docid did = 0;
        for (uint32_t i = 1; i < count; ++i) {
            uint32_t distance = 0;
            if (!read_varint(at, end, distance) || distance == 0 ||
                distance > std::numeric_limits<Xapian::docid>::max() - did) {
                return {};
            }
            did += distance;
            record.documents.push_back(did);
        }
        records.push_back(std::move(record));
    }
    return records;
}

}  // namespace

void RecordingWriter::wrote(Xapian::docid did) {
    if (too_many_) return;
    noted().insert(did);
    if (pending_.size() + transaction_.size() > most_listed) {
        too_many_ = true;
        pending_.clear();
        transaction_.clear();
    }
}

void RecordingWriter::writing(const std::string &term) {
    if (too_many_) return;  // nothing more is listed until the commit
    const auto end = database_.postlist_end(term);
    for (auto posting = database_.postlist_begin(term); posting != end && !too_many_; ++posting) wrote(*posting);
}

Xapian::docid RecordingWriter::replace(const std::string &unique_term, const Xapian::Document &document) {
    writing(unique_term);
    const Xapian::docid did = database_.replace_document(unique_term, document);
    wrote(did);
    return did;
}

Xapian::docid RecordingWriter::add(const Xapian::Document &document) {
    const Xapian::docid did = database_.add_document(document);
    wrote(did);
    return did;
}

void RecordingWriter::remove(const std::string &term) {
    writing(term);
    database_.delete_document(term);
}

void RecordingWriter::set_metadata(const std::string &key, const std::string &value) {
    dirty_ = true;
    database_.set_metadata(key, value);
}

template <typename Commit> void RecordingWriter::recorded(Commit commit) {
    if (dirty()) record();
    try {
        commit();
    } catch (...) {
        too_many_ = true;  // what the record listed is still pending, and listed nowhere now
        throw;
    }
}

void RecordingWriter::commit() {
    recorded([this] { database_.commit(); });
}

void RecordingWriter::begin_transaction(bool flushed) {
    if (flushed && dirty()) commit();
    database_.begin_transaction(flushed);
    in_transaction_ = true;
    flushed_transaction_ = flushed;
}

void RecordingWriter::commit_transaction() {
    pending_.insert(transaction_.begin(), transaction_.end());
    transaction_.clear();
    in_transaction_ = false;
    if (flushed_transaction_) {
        recorded([this] { database_.commit_transaction(); });
    } else {
        database_.commit_transaction();  // committed by the next commit, and recorded then
    }
}

void RecordingWriter::cancel_transaction() {
    transaction_.clear();
    in_transaction_ = false;
    database_.cancel_transaction();
}

void RecordingWriter::record() {
    const std::string uuid = database_.get_uuid();
    const Xapian::rev next = database_.get_revision() + 1;
    std::vector<Record> records = parse(database_.get_metadata(key), uuid);
    // A record at or past this revision is not this database's history (a copy's, restored): none is kept.
    while (!records.empty() && records.back().revision >= next) records.pop_back();
    Record made;
    made.revision = static_cast<uint32_t>(next);
    made.too_many = too_many_ || next > std::numeric_limits<uint32_t>::max();
    if (!made.too_many) made.documents.assign(pending_.begin(), pending_.end());
    records.push_back(std::move(made));
    size_t listed = 0;
    for (const Record &record : records) listed += record.documents.size();
    size_t first = 0;
    while (records.size() - first > most_records || listed > most_docids) listed -= records[first++].documents.size();

    std::string value;
    append_varint(value, static_cast<uint32_t>(uuid.size()));
    value += uuid;
    for (size_t r = first; r < records.size(); ++r) {
        const Record &record = records[r];
        append_varint(value, record.revision);
        append_varint(value, record.too_many ? 0 : static_cast<uint32_t>(record.documents.size() + 1));
        if (record.too_many) continue;
        Xapian::docid previous = 0;
        for (const Xapian::docid did : record.documents) {
            append_varint(value, did - previous);
            previous = did;
        }
    }
    database_.set_metadata(key, value);
    pending_.clear();
    too_many_ = false;
    dirty_ = false;
}

bool changed_since(const Xapian::Database &database, Xapian::rev since, std::vector<Xapian::docid> &documents) {
    documents.clear();
    if (database.size() != 1) return false;
    const Xapian::rev now = database.get_revision();
    if (now < since) return false;
    if (now == since) return true;
    const std::vector<Record> records = parse(database.get_metadata(RecordingWriter::key), database.get_uuid());
    // The records after `since` must be every revision up to now, each listed.
    Xapian::rev expected = since + 1;
    std::set<Xapian::docid> changed;
    for (const Record &record : records) {
        if (record.revision <= since) continue;
        if (record.revision != expected || record.too_many) return false;
        changed.insert(record.documents.begin(), record.documents.end());
        ++expected;
    }
    if (expected != now + 1) return false;
    documents.assign(changed.begin(), changed.end());
    return true;
}

}  // namespace cxapian
