// docid_list.h — posting sources over fixed documents (internal to CXapian).

#ifndef CXAPIAN_ENGINE_DOCID_LIST_H
#define CXAPIAN_ENGINE_DOCID_LIST_H

#include <xapian.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cxapian {

/// A fixed weight for every document it is moved to: the optional side of an AND_MAYBE whose required side holds what
/// earns it (the words of a title phrase, each worth its title bonus). Unlike Xapian's FixedWeightPostingSource it
/// reads nothing (that one walks the index's list of every document); as anything but the optional side of an
/// AND_MAYBE it would match documents that do not exist.
class ConstantSource : public Xapian::PostingSource {
  public:
    explicit ConstantSource(double weight) : weight_(weight) {}

    ConstantSource *clone() const override { return new ConstantSource(weight_); }
    void init(const Xapian::Database &database) override;
    Xapian::doccount get_termfreq_min() const override { return 0; }
    Xapian::doccount get_termfreq_est() const override { return documents_; }
    Xapian::doccount get_termfreq_max() const override { return documents_; }
    void next(double) override { ++current_; }
    void skip_to(Xapian::docid did, double) override { current_ = std::max(current_, did); }
    bool check(Xapian::docid did, double) override {
        current_ = std::max(current_, did);
        return true;
    }
    bool at_end() const override { return current_ > last_; }
    Xapian::docid get_docid() const override { return current_; }
    double get_weight() const override { return weight_; }
    std::string get_description() const override { return "ConstantSource(" + std::to_string(weight_) + ")"; }

  private:
    double weight_;
    Xapian::doccount documents_ = 0;
    Xapian::docid last_ = 0;
    Xapian::docid current_ = 0;
};

/// Matches exactly the documents of a list, adding no weight or a weight given for each: a second match restricted
/// to the candidates a first one found (rescoring), or what weigh_phrase_bonus() found.
class DocidListSource : public Xapian::PostingSource {
  public:
    /// `docids` sorted ascending, without repeats; `weights` empty, or one for each.
    explicit DocidListSource(std::vector<Xapian::docid> docids, std::vector<double> weights = {});

    DocidListSource *clone() const override;
    void init(const Xapian::Database &database) override;
    Xapian::doccount get_termfreq_min() const override { return static_cast<Xapian::doccount>(docids_.size()); }
    Xapian::doccount get_termfreq_est() const override { return static_cast<Xapian::doccount>(docids_.size()); }
    Xapian::doccount get_termfreq_max() const override { return static_cast<Xapian::doccount>(docids_.size()); }
    void next(double min_wt) override;
    void skip_to(Xapian::docid did, double min_wt) override;
    bool at_end() const override { return started_ && at_ == docids_.size(); }
    Xapian::docid get_docid() const override { return docids_[at_]; }
    double get_weight() const override { return weights_.empty() ? 0 : weights_[at_]; }
    std::string get_description() const override;

  private:
    std::vector<Xapian::docid> docids_;
    std::vector<double> weights_;
    size_t at_ = 0;
    bool started_ = false;
};

}  // namespace cxapian

#endif
