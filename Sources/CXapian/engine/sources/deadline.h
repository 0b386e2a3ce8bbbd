// deadline.h — a match's deadline, and a posting source that ends a match at it (internal to CXapian).

#ifndef CXAPIAN_ENGINE_DEADLINE_H
#define CXAPIAN_ENGINE_DEADLINE_H

#include <xapian.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace cxapian {

/// When a search's matches stop, asked by what walks them: DeadlineSource, or the posting sources of the fielded
/// ranking that walk a query's words (TermListsSource), which then end the match themselves without a filter over
/// every candidate. Xapian 1.4's time limit arms a POSIX timer whose SIGEV_THREAD notification can still run after
/// the match has returned and its timer is deleted, and then writes a flag into the match's stack frame, since reused:
/// `spotlite serve` crashed (SIGSEGV, SIGILL) within seconds of searches that outran --search-time-limit under
/// concurrent load. This asks the clock instead, every 64 questions. One match's walks ask it from one thread.
class MatchClock {
  public:
    MatchClock(std::chrono::steady_clock::time_point deadline, std::shared_ptr<std::atomic<bool>> stopped)
        : deadline_(deadline), stopped_(std::move(stopped)) {}

    /// Whether the match is to stop: the deadline has passed (the clock read every 64 questions), or a walk of the
    /// search already found it had (`stopped`, then set).
    bool expired() {
        if (lifted_) return false;
        if (stopped_->load(std::memory_order_relaxed)) return true;
        if ((++questions_ & 63) != 0 || std::chrono::steady_clock::now() < deadline_) return false;
        stopped_->store(true);
        return true;
    }

    /// Never expired from now on: the passes that only weigh documents a walk found (a rescored window, a sorted
    /// page's hits) run to their end, stopped or not, over queries whose sources ask this clock.
    void lift() { lifted_ = true; }

  private:
    std::chrono::steady_clock::time_point deadline_;
    std::shared_ptr<std::atomic<bool>> stopped_;
    uint32_t questions_ = 0;
    bool lifted_ = false;
};

/// Every document, until its clock expires: then the list ends, and a match it filters ends with it, keeping the best
/// of the matches examined so far (what Enquire::set_time_limit does). The clock is asked at every document the
/// filter visits.
class DeadlineSource : public Xapian::PostingSource {
  public:
    explicit DeadlineSource(std::shared_ptr<MatchClock> clock) : clock_(std::move(clock)) {}

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

    std::shared_ptr<MatchClock> clock_;
    Xapian::docid last_ = 0;
    Xapian::doccount documents_ = 0;
    Xapian::docid did_ = 0;
    bool ended_ = false;
};

}  // namespace cxapian

#endif
