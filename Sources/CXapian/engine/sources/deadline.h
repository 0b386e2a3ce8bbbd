// deadline.h — a posting source that ends a match at a deadline (internal to CXapian).

#ifndef CXAPIAN_ENGINE_DEADLINE_H
#define CXAPIAN_ENGINE_DEADLINE_H

#include <xapian.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace cxapian {

/// Every document, until a deadline: at it the list ends, and a match it filters ends with it, keeping the best of
/// the matches examined so far (what Enquire::set_time_limit does). Xapian 1.4's time limit arms a POSIX timer whose
/// SIGEV_THREAD notification can still run after the match has returned and its timer is deleted, and then writes a
/// flag into the match's stack frame, since reused: `spotlite serve` crashed (SIGSEGV, SIGILL) within seconds of
/// searches that outran --search-time-limit under concurrent load. This asks the clock instead, every 64 documents
/// the filter visits.
class DeadlineSource : public Xapian::PostingSource {
  public:
    DeadlineSource(std::chrono::steady_clock::time_point deadline, std::shared_ptr<std::atomic<bool>> stopped)
        : deadline_(deadline), stopped_(std::move(stopped)) {}

    DeadlineSource *clone() const override;
    void init(const Xapian::Database &database) override;

    // It says it holds every document, so that a filter's bounds and estimate are those of the query it filters.
    Xapian::doccount get_termfreq_min() const override { return documents_; }
    Xapian::doccount get_termfreq_est() const override { return documents_; }
    Xapian::doccount get_termfreq_max() const override { return documents_; }

    void next(double) override { move_to(did_ + 1); }
    void skip_to(Xapian::docid did, double) override { move_to(std::max(did, did_)); }
    bool at_end() const override { return ended_; }
    Xapian::docid get_docid() const override { return did_; }
    std::string get_description() const override { return "DeadlineSource"; }

  private:
    void move_to(Xapian::docid did);

    std::chrono::steady_clock::time_point deadline_;
    std::shared_ptr<std::atomic<bool>> stopped_;
    Xapian::docid last_ = 0;
    Xapian::doccount documents_ = 0;
    Xapian::docid did_ = 0;
    uint32_t visits_ = 0;
    bool ended_ = false;
};

}  // namespace cxapian

#endif
