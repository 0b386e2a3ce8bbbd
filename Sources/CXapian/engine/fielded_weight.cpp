// fielded_weight.cpp — FieldedBM25Weight. Called only from inside the C API's guarded entry points, so exceptions
// thrown here are caught there.

#include "fielded_weight.h"

#include <cmath>

namespace cxapian {

// ---- FieldedBM25Weight ----

FieldedBM25Weight::FieldedBM25Weight(double k1, double b) : k1_(k1), b_(b) {
    need_stat(COLLECTION_SIZE);
    need_stat(AVERAGE_LENGTH);
    need_stat(TERMFREQ);
    need_stat(WDF);
    need_stat(WDF_MAX);
    need_stat(DOC_LENGTH);
    need_stat(DOC_LENGTH_MIN);
}

FieldedBM25Weight *FieldedBM25Weight::clone() const { return new FieldedBM25Weight(k1_, b_); }

double FieldedBM25Weight::idf(double termfreq, double collection_size) {
    double ratio = (collection_size - termfreq + 0.5) / (termfreq + 0.5);
    // Small or negative for words in half the documents or more: keep it positive and ordered, as Xapian does.
    if (ratio < 2) ratio = ratio * 0.5 + 1;
    return std::log(ratio);
}

void FieldedBM25Weight::init(double factor) {
    termweight_ = idf(get_termfreq(), get_collection_size()) * factor;
    average_length_ = std::max(1.0, static_cast<double>(get_average_length()));
}

std::string FieldedBM25Weight::name() const { return "cxapian::FieldedBM25Weight"; }

double FieldedBM25Weight::saturation(double tf, double length, double average_length, double k1, double b) {
    if (tf == 0) return 0;
    double normalised = 1 - b + b * (length / average_length);
    return tf * (k1 + 1) / (tf + k1 * normalised);
}

double FieldedBM25Weight::get_sumpart(Xapian::termcount wdf, Xapian::termcount doclen, Xapian::termcount) const {
    return termweight_ * saturation(wdf, doclen, average_length_, k1_, b_);
}

double FieldedBM25Weight::get_maxpart() const {
    return termweight_ * saturation(get_wdf_upper_bound(), get_doclength_lower_bound(), average_length_, k1_, b_);
}

double FieldedBM25Weight::get_sumextra(Xapian::termcount, Xapian::termcount) const { return 0; }

double FieldedBM25Weight::get_maxextra() const { return 0; }

}  // namespace cxapian
