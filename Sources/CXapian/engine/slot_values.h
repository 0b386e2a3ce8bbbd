// slot_values.h — one value slot of every document, kept in memory by a long-lived reader for its sorts and its
// value ranges (internal to CXapian).

#ifndef CXAPIAN_ENGINE_SLOT_VALUES_H
#define CXAPIAN_ENGINE_SLOT_VALUES_H

#include "kept_tables.h"

#include <xapian.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cxapian {

/// One value slot of every document of a database at one revision, in one table: a long-lived reader's sort by that
/// slot reads each match's key from memory instead of seeking through the value stream for it, and a value range on
/// it checks a candidate's value there. For a common word sorted by `modified`, those seeks were most of
/// its match (docs/decisions/0006-reader-tables.md).
class SlotValues : public std::enable_shared_from_this<SlotValues> {
  public:
    /// Values longer than this are not kept (a slot holding one gets no table): every key a table gives is a short
    /// string, made without an allocation. Dates and numbers (sortable_serialise) take at most 9 bytes.
    static constexpr size_t longest = 15;

    /// The table of `slot` in `database` at its current revision; nullptr if a value is longer than `longest`.
    static std::shared_ptr<const SlotValues> read(const Xapian::Database &database, Xapian::valueno slot);
    /// `previous` (of an earlier revision of `database`) with the values of the documents `changed` since read anew,
    /// and its order by value, if made, patched too; nullptr if a value is longer than `longest`.
    static std::shared_ptr<const SlotValues> patched(const SlotValues &previous, const Xapian::Database &database,
                                                     Xapian::valueno slot, const std::vector<Xapian::docid> &changed);

    Xapian::rev revision() const { return revision_; }
    const std::string &uuid() const { return uuid_; }

    /// The value of document `did` ("" for none, as Xapian's value sort reads it).
    std::string_view value(Xapian::docid did) const {
        if (size_t(did) + 1 >= starts_.size()) return std::string_view();
        return std::string_view(bytes_).substr(starts_[did], starts_[did + 1] - starts_[did]);
    }

    /// How many documents hold a value.
    Xapian::doccount valued() const { return valued_; }
    /// One past the last docid the table holds (2^32 for a last docid of 2^32 - 1, hence 64 bits).
    uint64_t docid_limit() const { return uint64_t(starts_.size()) - 1; }

    /// Every docid below docid_limit() by value and then docid, those without a value (and those no document has)
    /// first, as a sort by the slot puts them; made on the first call (a sort by the slot in a match needs no order;
    /// a range needs it to list its documents, a page sorted by the slot to walk the documents in its order).
    const std::vector<Xapian::docid> &by_value() const;
    /// by_value() once it is made: nullptr until then. It is asked of the TableMaker at the second call (or is there
    /// at once in a table patched from one whose order was made), and the calls in between go without it: sorting
    /// every document costs several searches' time (a tenth of a second at a million), which no search should wait
    /// for, and which a reader whose index moves on after each search (the server's, under a busy writer) would pay
    /// at every revision, as the tables themselves are made on a revision's second search (RevisionTableCache). A
    /// table no shared pointer holds (made on the stack) makes its order at the second call, in it.
    const std::vector<Xapian::docid> *by_value_if_asked_again() const;
    /// How many of by_value()'s docids, at its start, hold no value.
    size_t unvalued() const { return size_t(docid_limit() - 1 - valued_); }

  private:
    /// Makes the order from `previous`'s (made), moving the documents `changed` to their new places: the runs of
    /// `previous`'s order between them copied whole, not a sort, nor a comparison, of every document again.
    void patch_order(const SlotValues &previous, const std::vector<Xapian::docid> &changed);

    Xapian::rev revision_ = 0;
    std::string uuid_;
    std::vector<uint32_t> starts_;  // document d's value is bytes_[starts_[d], starts_[d + 1])
    std::string bytes_;
    Xapian::doccount valued_ = 0;
    mutable std::once_flag order_once_;
    mutable std::vector<Xapian::docid> order_;
    mutable std::atomic<bool> ordered_{false};  // order_ made
    mutable std::atomic<uint32_t> asked_{0};
};

/// The value tables of one reader, one per slot a search sorts by or ranges over (see RevisionTableCache); safe to
/// use from several threads.
class SlotValuesCache {
  public:
    /// The table of `slot` for `database` as it is now, or nullptr (RevisionTableCache::get(); also when the slot
    /// holds a value too long for a table).
    std::shared_ptr<const SlotValues> get(const Xapian::Database &database, const std::string &path,
                                          Xapian::valueno slot);

    /// How many tables this reader has made itself.
    uint64_t tables_made();

  private:
    std::mutex mutex_;
    std::map<Xapian::valueno, RevisionTableCache<SlotValues>> slots_;
};

/// Sort keys from a SlotValues table, by docid: exactly the values Xapian's sort by that slot would read.
class TableKeyMaker : public Xapian::KeyMaker {
  public:
    explicit TableKeyMaker(std::shared_ptr<const SlotValues> values) : values_(std::move(values)) {}
    std::string operator()(const Xapian::Document &doc) const override {
        return std::string(values_->value(doc.get_docid()));
    }

  private:
    std::shared_ptr<const SlotValues> values_;
};

/// A value range of a query (OP_VALUE_RANGE, OP_VALUE_GE, OP_VALUE_LE) as it was built, since Xapian's Query does not
/// give a range's slot and bounds back: `leaf` is the range's own node, found again in a query by identity. Or a
/// boolean term whose documents are exactly those holding one value in a slot (a status, a priority): `leaf` is the
/// term, which Xapian walks as any term, and a table of the slot checks a candidate against in one look-up, where
/// the term's list is decoded up to it (most of a filtered search's match, for a filter a third of the documents hold).
struct ValueRangeLeaf {
    Xapian::Query leaf;
    Xapian::valueno slot = 0;
    std::optional<std::string> begin;  // none: no lower bound
    std::optional<std::string> end;    // none: no upper bound
    std::string term;                  // the term `leaf` is, if it is one; empty for a range

    /// The range as Xapian's query (a query matching all, without a bound).
    static ValueRangeLeaf make(Xapian::valueno slot, std::optional<std::string> begin, std::optional<std::string> end);
    /// The term `term`, held by exactly the documents whose value in `slot` is `value`.
    static ValueRangeLeaf term_of_value(std::string term, Xapian::valueno slot, std::string value);

    /// Whether `leaf` is a range node (it has a bound), which a query can hold and be searched for; without one it
    /// is a query matching all, which the query's rewrites may drop or merge.
    bool bounded() const { return begin || end; }
};

/// The documents whose value in a slot lies in a range, from the slot's SlotValues table: the documents Xapian's value
/// range matches, with no weight, as its range does. Xapian checks a candidate by moving the slot's value stream to it,
/// decoding the values between; this looks the value up (docs/decisions/0006-reader-tables.md). Walked (when the range
/// is the rarest part of an AND, or alone), it lists its documents from the table's order.
///
/// With a `term` (ValueRangeLeaf::term_of_value), the documents of the term: checked in the table, but counted and
/// walked as the term's own list (its exact frequency, the matcher's plan and estimates as for the term, and a walk
/// that stops where the page is full).
class SlotRangeSource : public Xapian::PostingSource {
  public:
    /// The documents sampled for the range's estimated size.
    static constexpr Xapian::docid samples = 1024;

    SlotRangeSource(std::shared_ptr<const SlotValues> values, Xapian::valueno slot, std::optional<std::string> begin,
                    std::optional<std::string> end, std::string term = std::string());

    SlotRangeSource *clone() const override;
    void init(const Xapian::Database &database) override;
    Xapian::doccount get_termfreq_min() const override { return term_.empty() ? 0 : estimate_; }
    Xapian::doccount get_termfreq_est() const override { return estimate_; }
    Xapian::doccount get_termfreq_max() const override { return term_.empty() ? values_->valued() : estimate_; }
    void next(double min_wt) override;
    void skip_to(Xapian::docid did, double min_wt) override;
    bool check(Xapian::docid did, double min_wt) override;
    bool at_end() const override { return ended_; }
    Xapian::docid get_docid() const override { return current_; }
    std::string get_description() const override;

  private:
    bool in_range(Xapian::docid did) const;
    /// Moves to the first document of the range at `did` or after.
    void move_to(Xapian::docid did);

    std::shared_ptr<const SlotValues> values_;
    Xapian::valueno slot_;
    std::optional<std::string> begin_, end_;
    std::string term_;
    bool exact_;                        // begin_ == end_: one value, compared for equality
    Xapian::Database database_;       // with a term: where its list is read
    Xapian::PostingIterator postings_;  // with a term: its list, opened at the first walk
    Xapian::doccount estimate_ = 0;
    /// The range's documents as bits by docid, made when the matcher first walks the range (a range it only checks
    /// candidates against needs none).
    std::vector<uint64_t> members_;
    bool walked_ = false;  // members_ made
    Xapian::docid current_ = 0;
    bool ended_ = false;
};

/// `query` with each value range of `ranges` that it holds (through operators whose subqueries stand alone) read
/// from the table `table(slot)` gives, where it gives one; ranges elsewhere, or without a table, stay Xapian's.
Xapian::Query with_value_tables(const Xapian::Query &query, const std::vector<ValueRangeLeaf> &ranges,
                                const std::function<std::shared_ptr<const SlotValues>(Xapian::valueno)> &table);

}  // namespace cxapian

#endif
