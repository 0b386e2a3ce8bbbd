// term_lists.cpp — TermListsSource. Called only from inside the C API's guarded entry points, so exceptions thrown
// here are caught there.

#include "term_lists.h"

namespace cxapian {

// ---- TermListsSource ----

void TermListsSource::open(const Xapian::Database &database, const std::vector<std::string> &terms, bool every) {
    database_ = database;
    lists_.clear();
    every_ = every;
    current_ = 0;
    started_ = false;
    ahead_ = 0;
    termfreq_min_ = 0;
    termfreq_max_ = every ? database_.get_doccount() : 0;
    Xapian::doccount sum = 0;
    const bool here = frequencies_ != nullptr && frequencies_->of_database(database);
    for (size_t i = 0; i < terms.size(); ++i) {
        Xapian::doccount frequency = here ? frequencies_->of(terms[i]) : database_.get_termfreq(terms[i]);
        if (frequency == 0) {
            if (!every) continue;
            lists_.clear();  // no document holds them all
            termfreq_max_ = 0;
            return;
        }
        List list{database_.postlist_begin(terms[i]), database_.postlist_end(terms[i]), i, 0};
        list.docid = list.at == list.end ? 0 : *list.at;
        lists_.push_back(std::move(list));
        if (every) {
            termfreq_max_ = std::min(termfreq_max_, frequency);
        } else {
            termfreq_min_ = std::max(termfreq_min_, frequency);
            sum += frequency;
        }
    }
    if (!every) termfreq_max_ = std::min(sum, database_.get_doccount());
}

void TermListsSource::settle(Xapian::docid did, double min_wt) {
    started_ = true;
    ahead_ = 0;
    current_ = 0;
    if (clock_ != nullptr && clock_->expired()) return;  // the end of the walk
    if (!every_) {
        // Past the weight the others can reach, only the lists from `leading` on find documents; the others are
        // moved to each one found, to be weighed there.
        const size_t leading = min_wt > others_reach_ ? leading_from_ : 0;
        for (auto &list : lists_) {
            if (list.term < leading) continue;
            if (list.docid != 0 && list.docid < did) list.move_to(did);
            if (list.docid == 0) continue;
            if (current_ == 0 || list.docid < current_) current_ = list.docid;
        }
        if (leading == 0 || current_ == 0) return;
        for (auto &list : lists_) {
            if (list.term >= leading) break;
            if (list.docid != 0 && list.docid < current_) list.move_to(current_);
        }
        return;
    }
    if (lists_.empty()) return;
    for (;;) {
        Xapian::docid highest = did;
        bool together = true;
        for (auto &list : lists_) {
            if (list.docid == 0) return;  // a term has no more documents: none holds them all
            if (list.docid < highest) list.move_to(highest);
            if (list.docid == 0) return;
            if (list.docid != highest) together = false;
            highest = std::max(highest, list.docid);
        }
        if (together) {
            current_ = highest;
            return;
        }
        did = highest;
    }
}

void TermListsSource::next(double min_wt) {
    if (started_ && current_ == 0) return;  // past the last
    if (ahead_ != 0) {
        // Left between documents by a check(): the next one is the one it found.
        current_ = ahead_;
        ahead_ = 0;
        return;
    }
    settle(started_ ? current_ + 1 : 1, min_wt);
}

void TermListsSource::skip_to(Xapian::docid did, double min_wt) {
    if (ahead_ != 0 && did <= ahead_) {
        current_ = ahead_;
        ahead_ = 0;
        return;
    }
    if (ahead_ == 0 && started_ && (current_ == 0 || did <= current_)) return;
    settle(did, min_wt);
}

bool TermListsSource::check(Xapian::docid did, double min_wt) {
    if (ahead_ != 0) {
        // Between documents: none before the next one the last check found.
        if (did < ahead_) {
            current_ = did;
            return false;
        }
        if (did == ahead_) {
            current_ = ahead_;
            ahead_ = 0;
            return true;
        }
    } else if (started_ && (current_ == 0 || did <= current_)) {
        return true;
    }
    settle(did, min_wt);
    if (current_ == 0 || current_ == did) return true;
    // Not a document of the walk: left at `did`, the next one kept for the next move.
    ahead_ = current_;
    current_ = did;
    return false;
}

}  // namespace cxapian
