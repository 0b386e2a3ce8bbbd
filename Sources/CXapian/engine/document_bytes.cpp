// document_bytes.cpp — DocumentBytes: one byte string of every document, in runs shared between revisions. Called
// only from inside the C API's guarded entry points, so exceptions thrown here are caught there.

#include "document_bytes.h"

#include "kept_tables.h"

#include <algorithm>

namespace cxapian {

class DocumentBytes::Builder {
  public:
    /// Fills `runs` up to docid `limit` (exclusive); nothing is added past `max_bytes` in all.
    Builder(std::vector<std::shared_ptr<const Run>> &runs, uint64_t limit, size_t max_bytes)
        : runs_(runs), limit_(limit), max_bytes_(max_bytes) {
        runs_.reserve(static_cast<size_t>((limit + run_size - 1) >> run_bits));
    }

    /// Appends `did`'s bytes (did at or after the next docid; those between get none); false past max_bytes.
    bool append(Xapian::docid did, std::string_view bytes) {
        skip_to(did);
        if (total_ + bytes.size() > max_bytes_) return false;
        step(bytes);
        return true;
    }

    /// Appends `run` whole as the run of the next docid, which starts it; false past max_bytes.
    bool share(const std::shared_ptr<const Run> &run) {
        if (total_ + run->bytes.size() > max_bytes_) return false;
        runs_.push_back(run);
        total_ += run->bytes.size();
        next_ = std::min<uint64_t>(next_ + run_size, limit_);
        return true;
    }

    /// Gives no bytes to the docids left up to the limit.
    void finish() { skip_to(limit_); }

    uint64_t next() const { return next_; }

  private:
    void skip_to(uint64_t did) {
        while (next_ < did) step({});
    }
    /// Gives the next docid `bytes`, closing its run if it is the run's last.
    void step(std::string_view bytes) {
        if (run_ == nullptr) run_ = std::make_shared<Run>();
        run_->offsets.push_back(static_cast<uint32_t>(run_->bytes.size()));
        run_->bytes.append(bytes);
        total_ += bytes.size();
        ++next_;
        if ((next_ & (run_size - 1)) == 0 || next_ == limit_) close_run();
    }
    void close_run() {
        run_->offsets.push_back(static_cast<uint32_t>(run_->bytes.size()));
        run_->bytes.shrink_to_fit();
        runs_.push_back(std::move(run_));
        run_ = nullptr;
    }

    std::vector<std::shared_ptr<const Run>> &runs_;
    const uint64_t limit_;
    const size_t max_bytes_;
    uint64_t next_ = 0;
    size_t total_ = 0;
    std::shared_ptr<Run> run_;
};

DocumentBytes::DocumentBytes(const Xapian::Database &database, std::optional<Xapian::valueno> slot, size_t max_bytes)
    : revision_(database.get_revision()), uuid_(database.get_uuid()), slot_(slot), max_bytes_(max_bytes),
      limit_(uint64_t(database.get_lastdocid()) + 1) {
    Builder builder(runs_, limit_, max_bytes_);
    if (slot_) {
        // The slot's value stream, in docid order.
        const auto end = database.valuestream_end(*slot_);
        for (auto value = database.valuestream_begin(*slot_); value != end; ++value) {
            if (value.get_docid() >= limit_) break;
            if (!builder.append(value.get_docid(), *value)) return;  // incomplete: not to be used
        }
    } else {
        // The list of every document (the posting list of the empty term), each one's data read in docid order.
        const auto end = database.postlist_end(std::string());
        for (auto posting = database.postlist_begin(std::string()); posting != end; ++posting) {
            const Xapian::docid did = *posting;
            if (did >= limit_) break;
            if (!builder.append(did, database.get_document(did, Xapian::DOC_ASSUME_VALID).get_data())) return;
        }
    }
    builder.finish();
    complete_ = true;
}

DocumentBytes::DocumentBytes(const DocumentBytes &previous, const Xapian::Database &database,
                             const std::vector<Xapian::docid> &changed)
    : revision_(database.get_revision()), uuid_(database.get_uuid()), slot_(previous.slot_),
      max_bytes_(previous.max_bytes_), limit_(uint64_t(database.get_lastdocid()) + 1) {
    if (!previous.complete_) return;  // incomplete: not to be used
    Builder builder(runs_, limit_, max_bytes_);
    auto change = changed.begin();
    while (builder.next() < limit_) {
        const uint64_t first = builder.next();
        const uint64_t end = std::min<uint64_t>(first + run_size, limit_);
        while (change != changed.end() && *change < first) ++change;
        const bool written = change != changed.end() && *change < end;
        const size_t index = static_cast<size_t>(first >> run_bits);
        // A run no commit wrote to, as long as it was then: the previous table's own.
        if (!written && end <= previous.limit_ && index < previous.runs_.size() &&
            previous.runs_[index]->offsets.size() == end - first + 1) {
            if (!builder.share(previous.runs_[index])) return;
            ++shared_runs_;
            continue;
        }
        for (uint64_t did = first; did < end; ++did) {
            const auto docid = static_cast<Xapian::docid>(did);
            while (change != changed.end() && *change < docid) ++change;  // a docid listed twice counts once
            if (change != changed.end() && *change == docid) {
                const auto document = document_if_any(database, docid);
                if (!builder.append(docid, document ? read(*document) : std::string())) return;
            } else if (!builder.append(docid, previous.bytes(docid))) {
                return;
            }
        }
    }
    complete_ = true;
}

}  // namespace cxapian
