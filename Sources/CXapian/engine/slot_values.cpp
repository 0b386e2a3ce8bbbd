// slot_values.cpp — one value slot of every document in memory, for sorts and value ranges.

#include "slot_values.h"

#include "kept_tables.h"
#include "query_parts.h"

#include <algorithm>
#include <cstring>
#include <climits>
#include <cstdio>
#include <limits>

namespace cxapian {

std::shared_ptr<const SlotValues> SlotValues::read(const Xapian::Database &database, Xapian::valueno slot) {
    auto table = std::make_shared<SlotValues>();
    table->revision_ = database.get_revision();
    table->uuid_ = database.get_uuid();
    const size_t size = static_cast<size_t>(database.get_lastdocid()) + 2;
    table->starts_.assign(size, 0);
    size_t next = 0;  // the first docid whose start is not set yet
    const auto end = database.valuestream_end(slot);
    for (auto value = database.valuestream_begin(slot); value != end; ++value) {
        const size_t did = value.get_docid();
        if (did + 1 >= size) break;
        const std::string bytes = *value;
        if (bytes.size() > longest || table->bytes_.size() + bytes.size() > UINT32_MAX) return nullptr;
        for (; next <= did; ++next) table->starts_[next] = static_cast<uint32_t>(table->bytes_.size());
        table->bytes_ += bytes;
        if (!bytes.empty()) ++table->valued_;
    }
    for (; next < size; ++next) table->starts_[next] = static_cast<uint32_t>(table->bytes_.size());
    return table;
}

std::shared_ptr<const SlotValues> SlotValues::patched(const SlotValues &previous, const Xapian::Database &database,
                                                      Xapian::valueno slot,
                                                      const std::vector<Xapian::docid> &changed) {
    auto table = std::make_shared<SlotValues>();
    table->revision_ = database.get_revision();
    table->uuid_ = database.get_uuid();
    const auto value = [slot](const std::optional<Xapian::Document> &document) {
        return document ? document->get_value(slot) : std::string();
    };
    const auto short_enough = [](const std::string &bytes) { return bytes.size() <= longest; };
    if (!patch_byte_table(previous.starts_, previous.bytes_, database, changed, UINT32_MAX, value, short_enough,
                          table->starts_, table->bytes_)) {
        return nullptr;
    }
    // The documents holding a value: the previous table's count, moved by the documents written (`changed` is sorted)
    // and those past its end, not a count over every document.
    int64_t valued = previous.valued_;
    const uint64_t previous_limit = previous.docid_limit();
    Xapian::docid last = 0;
    for (const Xapian::docid did : changed) {
        if (did == last || did >= previous_limit) continue;
        last = did;
        valued += int64_t(!table->value(did).empty()) - int64_t(!previous.value(did).empty());
    }
    for (uint64_t did = std::max<uint64_t>(previous_limit, 1); did < table->docid_limit(); ++did) {
        if (!table->value(Xapian::docid(did)).empty()) ++valued;
    }
    table->valued_ = static_cast<Xapian::doccount>(valued);
    if (previous.ordered_.load(std::memory_order_acquire)) table->patch_order(previous, changed);
    return table;
}

void SlotValues::patch_order(const SlotValues &previous, const std::vector<Xapian::docid> &changed) {
    // The docids whose place may have moved: those written, and those past the last revision's table.
    const uint64_t limit = docid_limit();
    const uint64_t previous_limit = previous.docid_limit();
    std::vector<bool> moved(static_cast<size_t>(limit), false);
    std::vector<Xapian::docid> placed;
    for (const Xapian::docid did : changed) {
        if (did < limit && !moved[did]) {
            moved[did] = true;
            placed.push_back(did);
        }
    }
    for (uint64_t did = std::max<uint64_t>(previous_limit, 1); did < limit; ++did) {
        if (!moved[static_cast<size_t>(did)]) {
            moved[static_cast<size_t>(did)] = true;
            placed.push_back(static_cast<Xapian::docid>(did));
        }
    }
    // by_value()'s order: (value, docid), the value's bytes compared as unsigned (as the zero-padded keys compare);
    // `a` by its value in table `in_a`, `b` by its value in `in_b`.
    const auto before = [](const SlotValues &in_a, Xapian::docid a, const SlotValues &in_b, Xapian::docid b) {
        const int order = in_a.value(a).compare(in_b.value(b));
        return order != 0 ? order < 0 : a < b;
    };
    std::sort(placed.begin(), placed.end(),
              [&](Xapian::docid a, Xapian::docid b) { return before(*this, a, *this, b); });
    // The previous order is sorted by the previous values, which are this table's for every document not placed
    // anew: where each placed document stood in it, and where it goes among the others, are binary searches of it,
    // and the runs between are copied whole. A change costs its searches and the copy, not a comparison of values for
    // every document (a million of them at each revision of a large index).
    const std::vector<Xapian::docid> &old = previous.order_;
    const auto first_not_before = [&](size_t from, const SlotValues &in, Xapian::docid did) {
        return static_cast<size_t>(std::partition_point(old.begin() + static_cast<std::ptrdiff_t>(from), old.end(),
                                                        [&](Xapian::docid other) {
                                                            return before(previous, other, in, did);
                                                        }) -
                                   old.begin());
    };
    std::vector<size_t> left;  // the positions in `old` of the documents placed anew
    for (const Xapian::docid did : placed) {
        if (did >= previous_limit) continue;
        const size_t at = first_not_before(0, previous, did);
        if (at < old.size() && old[at] == did) left.push_back(at);
    }
    std::sort(left.begin(), left.end());
    order_.reserve(static_cast<size_t>(limit > 0 ? limit - 1 : 0));
    auto skip = left.begin();
    // Appends old[from, to) but the documents placed anew.
    const auto copy = [&](size_t from, size_t to) {
        for (; skip != left.end() && *skip < to; ++skip) {
            order_.insert(order_.end(), old.begin() + static_cast<std::ptrdiff_t>(from),
                          old.begin() + static_cast<std::ptrdiff_t>(*skip));
            from = *skip + 1;
        }
        if (from < to) {
            order_.insert(order_.end(), old.begin() + static_cast<std::ptrdiff_t>(from),
                          old.begin() + static_cast<std::ptrdiff_t>(to));
        }
    };
    size_t from = 0;
    for (const Xapian::docid did : placed) {
        const size_t to = first_not_before(from, *this, did);
        copy(from, to);
        order_.push_back(did);
        from = to;
    }
    copy(from, old.size());
    ordered_.store(true, std::memory_order_release);
}

const std::vector<Xapian::docid> &SlotValues::by_value() const {
    if (ordered_.load(std::memory_order_acquire)) return order_;  // made already, or patched from the last revision's
    std::call_once(order_once_, [this] {
        // Sorted as (the value's bytes zero-padded to 16, its length, docid), which is the order of (value, docid):
        // integers compared, not strings, which is several times faster.
        struct Key {
            uint64_t high, low;
            uint32_t length;
            Xapian::docid did;
            bool operator<(const Key &other) const {
                if (high != other.high) return high < other.high;
                if (low != other.low) return low < other.low;
                if (length != other.length) return length < other.length;
                return did < other.did;
            }
        };
        auto word = [](const unsigned char *bytes) {
            uint64_t result = 0;
            for (int i = 0; i < 8; ++i) result = (result << 8) | bytes[i];
            return result;
        };
        std::vector<Key> keys;
        keys.reserve(starts_.size());
        for (size_t did = 1; did + 1 < starts_.size(); ++did) {
            const std::string_view bytes = value(static_cast<Xapian::docid>(did));
            unsigned char padded[16] = {};
            if (!bytes.empty()) std::memcpy(padded, bytes.data(), bytes.size());  // at most `longest` bytes
            keys.push_back({word(padded), word(padded + 8), uint32_t(bytes.size()), Xapian::docid(did)});
        }
        std::sort(keys.begin(), keys.end());
        order_.reserve(keys.size());
        for (const Key &key : keys) order_.push_back(key.did);
        ordered_.store(true, std::memory_order_release);
    });
    return order_;
}

const std::vector<Xapian::docid> *SlotValues::by_value_if_asked_again() const {
    if (ordered_.load(std::memory_order_acquire)) return &order_;
    if (asked_.fetch_add(1, std::memory_order_relaxed) == 0) return nullptr;
    const std::shared_ptr<const SlotValues> self = weak_from_this().lock();
    if (self == nullptr) return &by_value();
    // Keyed by the table itself, which the job holds until it is done: one sort per table, however often it is asked.
    char key[48];
    std::snprintf(key, sizeof key, "order %p", static_cast<const void *>(this));
    TableMaker::schedule(key, [self] { self->by_value(); });
    return nullptr;
}

std::shared_ptr<const SlotValues> SlotValuesCache::get(const Xapian::Database &database, const std::string &path,
                                                       Xapian::valueno slot) {
    RevisionTableCache<SlotValues> *cache;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        cache = &slots_[slot];  // std::map never moves its elements
    }
    return cache->get(
        database, "values " + std::to_string(slot), path,
        [slot](const Xapian::Database &db) { return SlotValues::read(db, slot); },
        [slot](const SlotValues &previous, const Xapian::Database &db, const std::vector<Xapian::docid> &changed) {
            return SlotValues::patched(previous, db, slot, changed);
        });
}

uint64_t SlotValuesCache::tables_made() {
    std::lock_guard<std::mutex> lock(mutex_);
    uint64_t made = 0;
    for (auto &slot : slots_) made += slot.second.tables_made();
    return made;
}

ValueRangeLeaf ValueRangeLeaf::make(Xapian::valueno slot, std::optional<std::string> begin,
                                    std::optional<std::string> end) {
    using Q = Xapian::Query;
    Q leaf = match_all();
    if (begin && end) {
        leaf = Q(Q::OP_VALUE_RANGE, slot, *begin, *end);
    } else if (begin) {
        leaf = Q(Q::OP_VALUE_GE, slot, *begin);
    } else if (end) {
        leaf = Q(Q::OP_VALUE_LE, slot, *end);
    }
    return ValueRangeLeaf{leaf, slot, std::move(begin), std::move(end)};
}

ValueRangeLeaf ValueRangeLeaf::term_of_value(std::string term, Xapian::valueno slot, std::string value) {
    Xapian::Query leaf(term);
    return ValueRangeLeaf{leaf, slot, value, value, std::move(term)};
}

SlotRangeSource::SlotRangeSource(std::shared_ptr<const SlotValues> values, Xapian::valueno slot,
                                 std::optional<std::string> begin, std::optional<std::string> end, std::string term)
    : values_(std::move(values)), slot_(slot), begin_(std::move(begin)), end_(std::move(end)), term_(std::move(term)),
      exact_(begin_ && end_ && *begin_ == *end_) {}

SlotRangeSource *SlotRangeSource::clone() const { return new SlotRangeSource(values_, slot_, begin_, end_, term_); }

void SlotRangeSource::init(const Xapian::Database &database) {
    members_.clear();
    walked_ = false;
    current_ = 0;
    ended_ = false;
    if (!term_.empty()) {
        database_ = database;
        postings_ = Xapian::PostingIterator();
        estimate_ = database.get_termfreq(term_);
        return;
    }
    // How many documents the range holds, from evenly spaced documents' values: what the matcher needs to choose
    // which of an AND's parts to walk. An exact count needs the table's order, made only for a walk.
    const SlotValues &values = *values_;
    const uint64_t limit = values.docid_limit();
    const uint64_t step = std::max<uint64_t>(1, limit / samples);
    uint64_t valued = 0, inside = 0;
    for (uint64_t did = 1 + step / 2; did < limit; did += step) {
        if (values.value(Xapian::docid(did)).empty()) continue;
        ++valued;
        if (in_range(Xapian::docid(did))) ++inside;
    }
    estimate_ = valued == 0 ? 0 : static_cast<Xapian::doccount>(values.valued() * inside / valued);
}

bool SlotRangeSource::in_range(Xapian::docid did) const {
    const std::string_view value = values_->value(did);
    if (value.empty()) return false;  // no value: Xapian's ranges match only documents that hold one
    if (exact_) return value == std::string_view(*begin_);  // one value (a term's): its bytes, not an order
    if (begin_ && value < std::string_view(*begin_)) return false;
    if (end_ && value > std::string_view(*end_)) return false;
    return true;
}

void SlotRangeSource::move_to(Xapian::docid did) {
    if (!term_.empty()) {
        if (!walked_) {
            walked_ = true;
            postings_ = database_.postlist_begin(term_);
        }
        if (postings_ != database_.postlist_end(term_)) postings_.skip_to(did);
        if (postings_ == database_.postlist_end(term_)) {
            ended_ = true;
        } else {
            current_ = *postings_;
        }
        return;
    }
    if (!walked_) {
        walked_ = true;
        const SlotValues &values = *values_;
        members_.assign(size_t(values.docid_limit()) / 64 + 1, 0);
        auto add = [this](Xapian::docid member) { members_[member / 64] |= uint64_t(1) << (member % 64); };
        if (const std::vector<Xapian::docid> *order = values.by_value_if_asked_again()) {
            auto below = [&values](Xapian::docid d, std::string_view key) { return values.value(d) < key; };
            auto above = [&values](std::string_view key, Xapian::docid d) { return key < values.value(d); };
            auto first = order->begin() + values.unvalued(), last = order->end();
            if (begin_) first = std::lower_bound(first, last, std::string_view(*begin_), below);
            if (end_) last = std::upper_bound(first, last, std::string_view(*end_), above);
            for (auto at = first; at < last; ++at) add(*at);
        } else {
            for (uint64_t member = 1; member < values.docid_limit(); ++member) {
                if (in_range(Xapian::docid(member))) add(Xapian::docid(member));
            }
        }
    }
    size_t word = size_t(did) / 64;
    if (word >= members_.size()) {
        ended_ = true;
        return;
    }
    uint64_t bits = members_[word] & (~uint64_t(0) << (did % 64));
    while (bits == 0) {
        if (++word == members_.size()) {
            ended_ = true;
            return;
        }
        bits = members_[word];
    }
    current_ = static_cast<Xapian::docid>(word * 64 + size_t(__builtin_ctzll(bits)));
}

void SlotRangeSource::next(double) {
    if (current_ == std::numeric_limits<Xapian::docid>::max()) {
        ended_ = true;
        return;
    }
    move_to(current_ + 1);
}

void SlotRangeSource::skip_to(Xapian::docid did, double) {
    // Where a check left it on a document out of the range, a skip to it or before moves on past it.
    if (did <= current_ && current_ != 0 && in_range(current_)) return;
    move_to(std::max(did, current_));
}

bool SlotRangeSource::check(Xapian::docid did, double) {
    current_ = did;
    return in_range(did);  // false: not in the range, and the position is "indeterminate" (next() moves past it)
}

std::string SlotRangeSource::get_description() const {
    return "SlotRangeSource(slot " + std::to_string(slot_) + ", about " + std::to_string(estimate_) + " documents)";
}

Xapian::Query with_value_tables(const Xapian::Query &query, const std::vector<ValueRangeLeaf> &ranges,
                                const std::function<std::shared_ptr<const SlotValues>(Xapian::valueno)> &table) {
    for (const ValueRangeLeaf &range : ranges) {
        if (!range.bounded() || query.internal.get() != range.leaf.internal.get()) continue;
        std::shared_ptr<const SlotValues> values = table(range.slot);
        if (values == nullptr) return query;
        return Xapian::Query(
            (new SlotRangeSource(std::move(values), range.slot, range.begin, range.end, range.term))->release());
    }
    if (!combines_subqueries(query.get_type())) return query;
    Xapian::Query rewritten;
    const bool changed = rewrite_subqueries(
        query,
        [&](const Xapian::Query &part, Xapian::Query &out) {
            out = with_value_tables(part, ranges, table);
            return out.internal.get() != part.internal.get();
        },
        rewritten);
    return changed ? rewritten : query;
}

}  // namespace cxapian
