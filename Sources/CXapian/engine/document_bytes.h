// document_bytes.h — one byte string of every document (its data, or its value in one slot), kept by a long-lived
// reader for one revision in runs shared between revisions (internal to CXapian).

#ifndef CXAPIAN_ENGINE_DOCUMENT_BYTES_H
#define CXAPIAN_ENGINE_DOCUMENT_BYTES_H

#include <xapian.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cxapian {

/// One byte string of every document of a database at one revision, by docid: its data (PositionsTable: the packed
/// positions a phrase's check reads), or its value in one slot (a hit's unique identifier, which a page reads for
/// each hit). Reading either from the index is a look-up in a table of its own for each document, a block read whole
/// (Glass keeps no cache of blocks); here it is an index into memory.
///
/// The table is held in runs of `run_size` docids, each shared by every table that holds it unchanged: a table
/// patched from an earlier revision's (the next revision's, under a writer) makes anew only the runs whose documents
/// were written since, where a flat table was copied whole at every revision.
class DocumentBytes {
  public:
    /// How many docids a run holds (the last run: up to the last docid).
    static constexpr unsigned run_bits = 12;
    static constexpr Xapian::docid run_size = Xapian::docid(1) << run_bits;

    /// Reads the bytes of every document of `database` (one database) at its current revision: its data, or with a
    /// `slot` its value there; up to `max_bytes` in all (past them the table is not complete, and not to be used).
    DocumentBytes(const Xapian::Database &database, std::optional<Xapian::valueno> slot, size_t max_bytes);
    /// `previous` (of an earlier revision of `database`) with the bytes of the documents `changed` (ascending) since
    /// read anew; the runs they leave as they were are `previous`'s own.
    DocumentBytes(const DocumentBytes &previous, const Xapian::Database &database,
                  const std::vector<Xapian::docid> &changed);

    Xapian::rev revision() const { return revision_; }
    const std::string &uuid() const { return uuid_; }
    /// The slot whose values it holds (none: the documents' data).
    std::optional<Xapian::valueno> slot() const { return slot_; }
    /// Whether it holds every document's bytes (false past its bytes' limit: not to be used).
    bool complete() const { return complete_; }
    /// The bytes of `did` (empty for a document with none, or none there).
    std::string_view bytes(Xapian::docid did) const {
        // An incomplete table holds only the runs made before it stopped.
        if (did >= limit_ || (did >> run_bits) >= runs_.size()) return {};
        const Run &run = *runs_[did >> run_bits];
        const size_t at = did & (run_size - 1);
        return std::string_view(run.bytes.data() + run.offsets[at], run.offsets[at + 1] - run.offsets[at]);
    }
    /// How many of its runs it shares with the table it was patched from (none for one read whole).
    size_t shared_runs() const { return shared_runs_; }

  private:
    /// The bytes of the docids from a multiple of run_size on: the i-th's are bytes[offsets[i], offsets[i + 1]).
    struct Run {
        std::vector<uint32_t> offsets;
        std::string bytes;
    };
    /// Appends documents' bytes in docid order, closing each run as it fills.
    class Builder;

    /// What the table holds of `document`.
    std::string read(const Xapian::Document &document) const {
        return slot_ ? document.get_value(*slot_) : document.get_data();
    }

    Xapian::rev revision_;
    std::string uuid_;
    std::optional<Xapian::valueno> slot_;
    size_t max_bytes_;
    bool complete_ = false;
    std::vector<std::shared_ptr<const Run>> runs_;
    uint64_t limit_ = 0;  // one past the last docid held
    size_t shared_runs_ = 0;
};

}  // namespace cxapian

#endif
