// deadline.cpp — DeadlineSource. Called only from inside the C API's guarded entry points, so exceptions thrown here
// are caught there.

#include "deadline.h"

namespace cxapian {

DeadlineSource *DeadlineSource::clone() const { return new DeadlineSource(clock_); }

void DeadlineSource::init(const Xapian::Database &database) {
    last_ = database.get_lastdocid();
    documents_ = database.get_doccount();
    did_ = 0;
    ended_ = false;
    set_maxweight(0);
}

void DeadlineSource::move_to(Xapian::docid did) {
    did_ = did;
    ended_ = did_ == 0 || did_ > last_ || clock_->expired();
}

}  // namespace cxapian
