// fielded_weight.h — the BM25 weight of Spotlite's two-field ranking (internal to CXapian).

#ifndef CXAPIAN_ENGINE_FIELDED_WEIGHT_H
#define CXAPIAN_ENGINE_FIELDED_WEIGHT_H

#include <xapian.h>

#include <string>

namespace cxapian {

// Xapian 1.4 scores every term of a query with one weighting scheme against the whole document's length, so a
// title indexed under its own prefix gets its own (higher) document frequency and is normalised by the length of
// the detail. Spotlite ranks as the two-field models of the literature do (BM25F and its simplifications):
//
//   score(d) = Σ over query words t of  idf(t) · tf · (k1 + 1) / (tf + k1 · (1 − b + b · |detail| / avg))
//                                      + title_bonus · idf(t) · [t in the title of d]
//   with tf = [t in the title of d] + tf(t, detail)
//
// with one idf per word, from the number of documents holding it in either field: the title counts as part of the
// text once, and once more as the title. The title's terms carry wdf 0, so a document's length is its detail's;
// rewrite_for_fields() turns the query parser's pair (detail term OR title term) for each word into a WordSource
// over both, and gives title-only queries (title:word, phrases in titles) the bonus alone (TitleBonusSource).

/// BM25 over what is left of a document once its title carries no wdf: its detail. idf is log((N − n + ½)/(n + ½)),
/// smoothed as Xapian's BM25 is where that would be small or negative (ratio < 2 → ½·ratio + 1).
class FieldedBM25Weight : public Xapian::Weight {
  public:
    FieldedBM25Weight(double k1, double b);

    FieldedBM25Weight *clone() const override;
    void init(double factor) override;
    std::string name() const override;
    double get_sumpart(Xapian::termcount wdf, Xapian::termcount doclen, Xapian::termcount uniqterms) const override;
    double get_maxpart() const override;
    double get_sumextra(Xapian::termcount doclen, Xapian::termcount uniqterms) const override;
    double get_maxextra() const override;

    /// The idf of a term in `termfreq` of `collection_size` documents, as this scheme computes it.
    static double idf(double termfreq, double collection_size);

    /// BM25's term-frequency part: tf · (k1 + 1) / (tf + k1 · (1 − b + b · length / average_length)); 0 for tf 0.
    static double saturation(double tf, double length, double average_length, double k1, double b);

  private:
    double k1_;
    double b_;
    double termweight_ = 0;  // idf × the factor the matcher scales this term by
    double average_length_ = 1;
};

}  // namespace cxapian

#endif
