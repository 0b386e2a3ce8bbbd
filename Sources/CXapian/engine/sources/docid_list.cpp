// docid_list.cpp — ConstantSource and DocidListSource. Called only from inside the C API's guarded entry points, so
// exceptions thrown here are caught there.

#include "docid_list.h"

namespace cxapian {

// ---- ConstantSource ----

void ConstantSource::init(const Xapian::Database &database) {
    documents_ = database.get_doccount();
    last_ = database.get_lastdocid();
    current_ = 0;
    set_maxweight(weight_);
}

// ---- DocidListSource ----

DocidListSource::DocidListSource(std::vector<Xapian::docid> docids, std::vector<double> weights)
    : docids_(std::move(docids)), weights_(std::move(weights)) {
    if (weights_.size() != docids_.size()) weights_.clear();
}

DocidListSource *DocidListSource::clone() const { return new DocidListSource(docids_, weights_); }

void DocidListSource::init(const Xapian::Database &) {
    at_ = 0;
    started_ = false;
    double most = 0;
    for (double weight : weights_) most = std::max(most, weight);
    set_maxweight(most);
}

void DocidListSource::next(double) {
    if (started_ && at_ < docids_.size()) ++at_;
    started_ = true;
}

void DocidListSource::skip_to(Xapian::docid did, double) {
    started_ = true;
    at_ = static_cast<size_t>(std::lower_bound(docids_.begin() + at_, docids_.end(), did) - docids_.begin());
}

std::string DocidListSource::get_description() const {
    return "DocidListSource(" + std::to_string(docids_.size()) + " documents)";
}

}  // namespace cxapian
