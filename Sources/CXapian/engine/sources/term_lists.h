// term_lists.h — a posting source walking several terms' posting lists (internal to CXapian).

#ifndef CXAPIAN_ENGINE_TERM_LISTS_H
#define CXAPIAN_ENGINE_TERM_LISTS_H

#include "../term_lookups.h"
#include "deadline.h"

#include <xapian.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cxapian {

/// A posting source over several terms' posting lists, in document order: the documents any of the terms index (a
/// union) or all of them do (an intersection); the document at hand and which of the terms index it. The sources
/// below are such walks; each says what a document weighs.
class TermListsSource : public Xapian::PostingSource {
  public:
    Xapian::doccount get_termfreq_min() const override { return termfreq_min_; }
    Xapian::doccount get_termfreq_est() const override { return termfreq_max_; }
    Xapian::doccount get_termfreq_max() const override { return termfreq_max_; }
    void next(double min_wt) override;
    void skip_to(Xapian::docid did, double min_wt) override;
    /// Whether `did` is one of the walk's documents, the walk left at `did` either way (a next() goes on from it).
    /// Xapian 1.4's AND_MAYBE turned AND skips the document its optional side stands on when that is past the
    /// required side's (`std::max(lhead, rhead) + 1` in AndMaybePostList::next): a check that never moves past
    /// `did` (false there, so the AND_MAYBE notes no document for its optional side) keeps that from happening.
    bool check(Xapian::docid did, double min_wt) override;
    bool at_end() const override { return started_ && current_ == 0; }
    Xapian::docid get_docid() const override { return current_; }

    /// Reads the terms' frequencies from the match's `frequencies` (where open() is given the database they are of),
    /// which the rewrite that made this source has mostly read already, not from the index.
    void read_frequencies(std::shared_ptr<TermLookups> frequencies) { frequencies_ = std::move(frequencies); }

    /// Ends the walk once `clock` expires (nullptr: never), as a DeadlineSource filtering it would: a query whose
    /// walk ends when such sources end needs no filter that asks at every candidate (until_deadline()).
    void stop_at(std::shared_ptr<MatchClock> clock) { clock_ = std::move(clock); }

  protected:
    /// `copy` (this source's clone) reading the same frequencies and stopping at the same clock.
    template <typename Source> Source *with_shared(Source *copy) const {
        static_cast<TermListsSource *>(copy)->frequencies_ = frequencies_;
        static_cast<TermListsSource *>(copy)->clock_ = clock_;
        return copy;
    }

    /// Opens the lists of the `terms` that index any document of `database`, before the first document: to walk the
    /// documents any of them index, or with `every` those all of them index.
    void open(const Xapian::Database &database, const std::vector<std::string> &terms, bool every = false);

    /// The database open() was given.
    const Xapian::Database &database() const { return database_; }

    /// Calls `body(i)` for each term `terms[i]` (as given to open()) that indexes the current document, in order.
    template <typename Body> void for_each_match(Body body) const {
        for_each_posting([&](size_t term, const Xapian::PostingIterator &) { body(term); });
    }

    /// Calls `body(i, posting)` for each term `terms[i]` that indexes the current document, with the posting list
    /// at it (its wdf and the document's length), in order.
    template <typename Body> void for_each_posting(Body body) const {
        for (const auto &list : lists_) {
            if (list.docid == current_ && current_ != 0) body(list.term, list.at);
        }
    }

    /// For a union: where a document not held by the lists of the terms from `terms[from]` on weighs at most
    /// `reach`, the walk asked for documents of more weight than that (min_wt, which only rises as the page fills)
    /// goes through those lists alone, and moves the others only to the documents they find.
    void lead_past(double reach, size_t from) {
        others_reach_ = reach;
        leading_from_ = from;
    }

  private:
    /// Moves to the first document from `did` on that the lists hold as asked (0 past the last), of those that can
    /// weigh `min_wt` (lead_past()).
    void settle(Xapian::docid did, double min_wt = 0);

    struct List {
        Xapian::PostingIterator at;
        Xapian::PostingIterator end;
        size_t term;
        /// The document `at` is at, 0 at the end: read once per move, where each `*at` is a call into Xapian (a
        /// word's walk asked it up to four times per document and list).
        Xapian::docid docid;

        /// Moves to the first document from `did` on (`did` past the list's document): the next one when that is
        /// the document after it, which Xapian finds without the search a skip does.
        void move_to(Xapian::docid did) {
            if (did - 1 == docid) {
                ++at;
            } else {
                at.skip_to(did);
            }
            docid = at == end ? 0 : *at;
        }
    };
    Xapian::Database database_;  // kept open while the lists are walked
    std::shared_ptr<TermLookups> frequencies_;
    std::shared_ptr<MatchClock> clock_;
    std::vector<List> lists_;
    bool every_ = false;
    Xapian::docid current_ = 0;
    bool started_ = false;
    /// Where a check() left the walk between documents (current_ is then the docid checked): the walk's next
    /// document, which the next move goes to without asking the lists again; 0 otherwise.
    Xapian::docid ahead_ = 0;
    double others_reach_ = HUGE_VAL;  // lead_past()
    size_t leading_from_ = 0;
    Xapian::doccount termfreq_min_ = 0;
    Xapian::doccount termfreq_max_ = 0;
};

}  // namespace cxapian

#endif
