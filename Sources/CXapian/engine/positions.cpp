// positions.cpp — PositionTerms, pack_positions, phrase_holds, PositionReader and PhraseSource (PositionsTable is a
// DocumentBytes, document_bytes.cpp; check_positions, which puts PhraseSources in a query, is check_positions.cpp).
// Called only from inside the C API's guarded entry points, so exceptions thrown here are caught there.

#include "positions.h"

#include "kept_tables.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <limits>

namespace cxapian {

const std::string PositionTerms::entry_prefix = "P";

namespace {

/// A number's metadata value: one varint and nothing after it.
uint32_t stored_number(const std::string &stored) {
    const char *at = stored.data();
    const char *const end = at + stored.size();
    uint32_t number = 0;
    if (!read_varint(at, end, number) || at != end || number >= PositionTerms::max_numbers) {
        throw Xapian::DatabaseCorruptError("a positional term's number in the index's metadata is not one");
    }
    return number;
}

/// The next number as the layout's key keeps it (decimal; empty for none given yet).
uint32_t stored_next(const std::string &stored) {
    if (stored.empty()) return 0;
    errno = 0;
    char *end = nullptr;
    const unsigned long long value = std::strtoull(stored.c_str(), &end, 10);
    if (errno != 0 || end != stored.c_str() + stored.size() || stored[0] < '0' || stored[0] > '9' ||
        value > PositionTerms::max_numbers) {
        throw Xapian::DatabaseCorruptError("the index's next positional term number is not a number");
    }
    return static_cast<uint32_t>(value);
}

}  // namespace

// ---- PositionTerms ----

uint32_t PositionTerms::number(const std::string &term, Xapian::WritableDatabase &database) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto known = numbers_.find(term);
    if (known != numbers_.end()) return known->second;
    const std::string key = entry_prefix + term;
    if (reads_) {
        const std::string stored = database.get_metadata(key);
        if (!stored.empty()) {
            const uint32_t number = stored_number(stored);
            if (numbers_.size() >= max_remembered) numbers_.clear();
            numbers_.emplace(term, number);
            return number;
        }
        if (!next_known_) {
            next_ = stored_next(database.get_metadata(key_));
            next_known_ = true;
        }
    }
    if (next_ >= max_numbers) {
        throw Xapian::InvalidOperationError("the index has numbered as many positional terms as it can; rebuild it");
    }
    const uint32_t given = next_++;
    std::string value;
    append_varint(value, given);
    database.set_metadata(key, value);
    database.set_metadata(key_, std::to_string(next_));
    // A fresh build's numbers are known here only: it never forgets them.
    if (reads_ && numbers_.size() >= max_remembered) numbers_.clear();
    numbers_.emplace(term, given);
    return given;
}

void PositionTerms::forget() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!reads_) return;
    numbers_.clear();
    next_known_ = false;
}

std::string PositionsCompactor::resolve_duplicate_metadata(const std::string &key, size_t num_tags,
                                                           const std::string tags[]) {
    // Xapian 1.4's glass compaction names the key as its table holds it: after the two bytes that mark user metadata.
    static const std::string table_prefix("\0\xc0", 2);
    const bool ours = key == key_ || (key.size() == table_prefix.size() + key_.size() &&
                                      key.compare(0, table_prefix.size(), table_prefix) == 0 &&
                                      key.compare(table_prefix.size(), std::string::npos, key_) == 0);
    if (!ours || num_tags == 0) return num_tags == 0 ? std::string() : tags[0];
    size_t largest = 0;
    for (size_t i = 1; i < num_tags; ++i) {
        if (stored_next(tags[i]) > stored_next(tags[largest])) largest = i;
    }
    return tags[largest];
}

// ---- packing ----

void pack_positions(Xapian::Document &document, PositionTerms &terms, Xapian::WritableDatabase &database) {
    size_t count = 0;
    for (auto term = document.termlist_begin(); term != document.termlist_end(); ++term) {
        count += term.positionlist_count();
    }
    // A long document keeps Xapian's position lists: a phrase reads only its words' there, where packed positions
    // are read whole.
    if (count > max_packed_positions) return;
    std::vector<std::pair<Xapian::termpos, uint32_t>> entries;
    entries.reserve(count);
    std::vector<std::string> positional;
    for (auto term = document.termlist_begin(); term != document.termlist_end(); ++term) {
        if (term.positionlist_count() == 0) continue;
        positional.push_back(*term);
        const std::string &name = positional.back();
        if (name.size() > PositionTerms::max_term_length) continue;
        const uint32_t number = terms.number(name, database);
        for (auto position = term.positionlist_begin(); position != term.positionlist_end(); ++position) {
            entries.emplace_back(*position, number);
        }
    }
    // The wdf stays: only the positions go (a title's terms keep their wdf of 0, a detail's their counts).
    for (const auto &name : positional) {
        document.remove_postings(name, 0, std::numeric_limits<Xapian::termpos>::max(), 0);
    }
    if (entries.empty()) return;
    std::sort(entries.begin(), entries.end());
    std::string packed;
    packed.reserve(entries.size() * 2);
    Xapian::termpos previous = 0;
    for (const auto &entry : entries) {
        const Xapian::termpos distance = entry.first - previous;
        if (distance != 1) {
            append_varint(packed, 0);
            append_varint(packed, distance);
        }
        append_varint(packed, entry.second + 1);
        previous = entry.first;
    }
    document.set_data(packed);
}

// ---- the checks ----

namespace {

bool contains(const std::vector<Xapian::termpos> &list, uint64_t position) {
    return position <= std::numeric_limits<Xapian::termpos>::max() &&
           std::binary_search(list.begin(), list.end(), static_cast<Xapian::termpos>(position));
}

/// Some base p ≥ 0 with p + i in lists[i] for every i: ExactPhrasePostList's test. The shortest list proposes the
/// bases.
bool exact_holds(const std::vector<std::vector<Xapian::termpos>> &lists) {
    size_t pivot = 0;
    for (size_t i = 1; i < lists.size(); ++i) {
        if (lists[i].size() < lists[pivot].size()) pivot = i;
    }
    for (const Xapian::termpos position : lists[pivot]) {
        if (position < pivot) continue;
        const uint64_t base = position - pivot;
        bool all = true;
        for (size_t i = 0; i < lists.size() && all; ++i) {
            if (i != pivot) all = contains(lists[i], base + i);
        }
        if (all) return true;
    }
    return false;
}

/// PhrasePostList's test, step for step: from each start of the first part, each next part at its first position
/// after the one before, while the phrase could still end within the window; else the start moves on to the first
/// position from which it could.
bool ordered_holds(Xapian::termpos window, const std::vector<std::vector<Xapian::termpos>> &lists) {
    const size_t count = lists.size();
    std::vector<size_t> at(count, 0);  // each list's place: its first position not passed over
    auto skip_to = [&](size_t i, uint64_t position) {
        while (at[i] < lists[i].size() && lists[i][at[i]] < position) ++at[i];
        return at[i] < lists[i].size();
    };
    for (;;) {
        const uint64_t base = lists[0][at[0]];
        uint64_t position = base;
        uint64_t end = 0;
        size_t i = 0;
        do {
            if (++i == count) return true;
            if (!skip_to(i, position + 1)) return false;
            position = lists[i][at[i]];
            end = position + (count - i);
        } while (end - base <= window);
        if (!skip_to(0, end - window)) return false;
    }
}

/// Whether each part can take a distinct position, `choices[i]` being the positions (numbered below `positions`)
/// part i may take: Kuhn's augmenting paths, from each part in turn, searched with a stack of their own (a frame per
/// part on the path: its next choice to try, and the position it reached for).
bool distinct_positions(const std::vector<std::vector<size_t>> &choices, size_t positions) {
    struct Frame {
        size_t part;
        size_t next;
        size_t reached;
    };
    std::vector<long> owner(positions, -1);  // the part holding each position, or -1
    std::vector<char> seen(positions);
    std::vector<Frame> stack;
    for (size_t part = 0; part < choices.size(); ++part) {
        std::fill(seen.begin(), seen.end(), 0);
        stack.assign(1, Frame{part, 0, 0});
        bool placed = false;
        while (!stack.empty() && !placed) {
            Frame &top = stack.back();
            if (top.next == choices[top.part].size()) {
                stack.pop_back();
                continue;
            }
            const size_t position = choices[top.part][top.next++];
            if (seen[position]) continue;
            seen[position] = 1;
            top.reached = position;
            if (owner[position] < 0) {
                // The path's end: each part on it takes the position it reached for.
                for (const Frame &frame : stack) owner[frame.reached] = static_cast<long>(frame.part);
                placed = true;
            } else {
                stack.push_back(Frame{static_cast<size_t>(owner[position]), 0, 0});
            }
        }
        if (!placed) return false;
    }
    return true;
}

/// A distinct position from each list within `window` (the highest less than `window` past the lowest): what
/// NearPostList looks for. The lowest of such positions is some list's, so each position of a list is tried as the
/// window's start.
bool near_holds(Xapian::termpos window, const std::vector<std::vector<Xapian::termpos>> &lists) {
    const size_t count = lists.size();
    std::vector<Xapian::termpos> starts;
    for (const auto &list : lists) starts.insert(starts.end(), list.begin(), list.end());
    std::sort(starts.begin(), starts.end());
    starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
    std::vector<size_t> from(count, 0);
    std::vector<Xapian::termpos> firsts(count);
    for (const Xapian::termpos start : starts) {
        const uint64_t limit = uint64_t(start) + window;  // the window: [start, limit)
        bool each = true;
        for (size_t i = 0; i < count && each; ++i) {
            while (from[i] < lists[i].size() && lists[i][from[i]] < start) ++from[i];
            each = from[i] < lists[i].size() && lists[i][from[i]] < limit;
            if (each) firsts[i] = lists[i][from[i]];
        }
        if (!each) continue;
        std::sort(firsts.begin(), firsts.end());
        if (std::adjacent_find(firsts.begin(), firsts.end()) == firsts.end()) return true;
        // Some parts' first positions coincide (a word named twice, CJK n-grams at one position): which distinct
        // positions they can take is a matching of parts to the window's positions.
        std::vector<Xapian::termpos> window_positions;
        for (size_t i = 0; i < count; ++i) {
            for (size_t j = from[i]; j < lists[i].size() && lists[i][j] < limit; ++j) {
                window_positions.push_back(lists[i][j]);
            }
        }
        std::sort(window_positions.begin(), window_positions.end());
        window_positions.erase(std::unique(window_positions.begin(), window_positions.end()), window_positions.end());
        if (window_positions.size() < count) continue;
        std::vector<std::vector<size_t>> choices(count);
        for (size_t i = 0; i < count; ++i) {
            for (size_t j = from[i]; j < lists[i].size() && lists[i][j] < limit; ++j) {
                const auto at = std::lower_bound(window_positions.begin(), window_positions.end(), lists[i][j]);
                choices[i].push_back(static_cast<size_t>(at - window_positions.begin()));
            }
        }
        if (distinct_positions(choices, window_positions.size())) return true;
    }
    return false;
}

}  // namespace

bool phrase_holds(Proximity kind, Xapian::termpos window, const std::vector<std::vector<Xapian::termpos>> &lists) {
    if (lists.empty()) return false;
    for (const auto &list : lists) {
        if (list.empty()) return false;
    }
    switch (kind) {
        case Proximity::exact: return exact_holds(lists);
        case Proximity::ordered: return ordered_holds(window, lists);
        case Proximity::near: return near_holds(window, lists);
    }
    return false;
}

// ---- PositionReader ----

void PositionReader::open(const Xapian::Database &database, const PositionsLayout &layout,
                          const std::vector<std::vector<std::string>> &parts) {
    database_ = database;
    parts_ = parts;
    numbers_.clear();
    held_ = layout.table;
    table_ = table_of(held_.get(), database);
    TermLookups *lookups = layout.lookups && layout.lookups->of_database(database) ? layout.lookups.get() : nullptr;
    const auto metadata = [&](const std::string &key) {
        return lookups != nullptr ? lookups->metadata(key) : database.get_metadata(key);
    };
    packed_ = !layout.empty() && !metadata(layout.key).empty();
    std::vector<char> found(parts.size(), 0);
    for (size_t part = 0; part < parts.size(); ++part) {
        for (const auto &term : parts[part]) {
            if ((lookups != nullptr ? lookups->of(term) : database.get_termfreq(term)) > 0) found[part] = 1;
            if (!packed_ || term.size() > PositionTerms::max_term_length) continue;
            // No number: no document's packed positions hold the term (a long document's may, in Xapian's table).
            const std::string stored = metadata(PositionTerms::entry_prefix + term);
            if (!stored.empty()) numbers_.emplace_back(stored_number(stored), static_cast<uint32_t>(part));
        }
    }
    std::sort(numbers_.begin(), numbers_.end());
    numbers_.erase(std::unique(numbers_.begin(), numbers_.end()), numbers_.end());
    mask_ = 0;
    for (const auto &number : numbers_) mask_ |= uint64_t(1) << (number.first & 63);
    hopeless_ = std::find(found.begin(), found.end(), 0) != found.end();
}

bool PositionReader::read(Xapian::docid did, std::vector<std::vector<Xapian::termpos>> &lists) {
    lists.resize(parts_.size());
    for (auto &list : lists) list.clear();
    if (hopeless_) return false;
    // From the reader's table, else the document's data: one B-tree look-up (a value stream would decode every value it
    // passes on the way to it). The candidate exists: the posting lists or the caller's match found it.
    std::string_view packed;
    if (packed_ && table_ != nullptr) {
        packed = table_->positions(did);
    } else if (packed_) {
        value_ = database_.get_document(did, Xapian::DOC_ASSUME_VALID).get_data();
        packed = value_;
    }
    if (!packed.empty()) {
        const uint64_t mask = mask_;
        unpack_positions(packed, [&](uint64_t position, uint32_t number) {
            if (((mask >> (number & 63)) & 1) == 0) return;
            if (position > std::numeric_limits<Xapian::termpos>::max()) {
                throw Xapian::DatabaseCorruptError("a packed position is out of range");
            }
            auto at = std::lower_bound(numbers_.begin(), numbers_.end(), std::make_pair(number, uint32_t(0)));
            for (; at != numbers_.end() && at->first == number; ++at) {
                auto &list = lists[at->second];
                // Terms of one part at one position (CJK n-grams) are one position of the part.
                if (list.empty() || list.back() != position) list.push_back(static_cast<Xapian::termpos>(position));
            }
        });
    } else {
        // Xapian's position lists: an index that packs none, or a long document of one that does (pack_positions).
        for (size_t part = 0; part < parts_.size(); ++part) {
            auto &list = lists[part];
            for (size_t t = 0; t < parts_[part].size(); ++t) {
                const std::string &term = parts_[part][t];
                const auto before = parts_[part].begin() + t;
                if (std::find(parts_[part].begin(), before, term) != before) continue;  // named twice in the part
                for (auto at = database_.positionlist_begin(did, term); at != database_.positionlist_end(did, term);
                     ++at) {
                    list.push_back(*at);
                }
            }
            if (parts_[part].size() > 1) {
                std::sort(list.begin(), list.end());
                list.erase(std::unique(list.begin(), list.end()), list.end());
            }
            if (list.empty()) return false;
        }
    }
    for (const auto &list : lists) {
        if (list.empty()) return false;
    }
    return true;
}

// ---- PhraseSource ----

PhraseSource::PhraseSource(std::vector<std::vector<std::string>> parts, Proximity kind, Xapian::termpos window,
                           PositionsLayout layout, bool filter)
    : parts_(std::move(parts)), kind_(kind), window_(window), layout_(std::move(layout)), filter_(filter) {}

PhraseSource *PhraseSource::clone() const { return new PhraseSource(parts_, kind_, window_, layout_, filter_); }

void PhraseSource::init(const Xapian::Database &database) {
    database_ = database;
    lists_.clear();
    current_ = 0;
    floor_ = 1;
    started_ = false;
    termfreq_est_ = 0;
    termfreq_max_ = 0;
    reader_.open(database, layout_, parts_);
    const Xapian::doccount documents = database.get_doccount();
    // Xapian's estimates for the operator this replaces: each part's (a term's frequency; an OR of terms combined
    // two least frequent at a time, as OrContext builds its tree, each pair l + r − l·r/N), then the AND of the parts
    // (MultiAndPostList: the product over N, least frequent first, rounded), then the phrase's share of it.
    std::vector<double> estimates;
    Xapian::doccount most = documents;
    bool empty = documents == 0 || reader_.hopeless();
    TermLookups *lookups =
        layout_.lookups && layout_.lookups->of_database(database) ? layout_.lookups.get() : nullptr;
    for (const auto &part : parts_) {
        lists_.emplace_back();
        std::vector<double> frequencies;
        uint64_t part_most = 0;
        for (size_t t = 0; t < part.size(); ++t) {
            const std::string &term = part[t];
            const Xapian::doccount frequency = lookups != nullptr ? lookups->of(term) : database.get_termfreq(term);
            if (frequency == 0) continue;
            frequencies.push_back(frequency);
            // A term named twice in a part is walked once.
            if (std::find(part.begin(), part.begin() + t, term) != part.begin() + t) continue;
            List list{database.postlist_begin(term), database.postlist_end(term), 0};
            list.docid = list.at == list.end ? 0 : *list.at;
            lists_.back().push_back(std::move(list));
            part_most += frequency;
        }
        if (frequencies.empty()) {
            empty = true;
            continue;
        }
        while (frequencies.size() > 1) {
            std::sort(frequencies.begin(), frequencies.end(), std::greater<double>());
            const double r = frequencies.back();
            frequencies.pop_back();
            const double l = frequencies.back();
            frequencies.back() = double(Xapian::doccount(l + r - l * r / documents + 0.5));
        }
        estimates.push_back(frequencies[0]);
        most = std::min<Xapian::doccount>(most, Xapian::doccount(std::min<uint64_t>(part_most, documents)));
    }
    if (empty) {
        lists_.clear();
        started_ = true;  // at the end: nothing to walk
        return;
    }
    std::sort(estimates.begin(), estimates.end());
    double together = estimates[0];
    for (size_t i = 1; i < estimates.size(); ++i) together = together * estimates[i] / documents;
    const Xapian::doccount all = static_cast<Xapian::doccount>(together + 0.5);
    const Xapian::doccount share = kind_ == Proximity::exact ? 4 : kind_ == Proximity::ordered ? 3 : 2;
    termfreq_est_ = (filter_ ? documents : all) / share;
    termfreq_max_ = most;
}

Xapian::docid PhraseSource::together(Xapian::docid did) {
    for (;;) {
        Xapian::docid highest = did;
        bool same = true;
        for (auto &part : lists_) {
            Xapian::docid first = 0;  // the part's first document from `highest` on
            for (auto &list : part) {
                if (list.docid != 0 && list.docid < highest) {
                    if (list.docid + 1 == highest) {
                        ++list.at;
                    } else {
                        list.at.skip_to(highest);
                    }
                    list.docid = list.at == list.end ? 0 : *list.at;
                }
                if (list.docid != 0 && (first == 0 || list.docid < first)) first = list.docid;
            }
            if (first == 0) return 0;  // a part has no more documents
            if (first != highest) {
                same = false;
                highest = first;
            }
        }
        if (same) return highest;
        did = highest;
    }
}

bool PhraseSource::holds(Xapian::docid did) {
    return reader_.read(did, positions_) && phrase_holds(kind_, window_, positions_);
}

void PhraseSource::settle(Xapian::docid did) {
    started_ = true;
    for (;;) {
        const Xapian::docid found = together(did);
        if (found == 0 || holds(found)) {
            current_ = found;
            return;
        }
        if (found == std::numeric_limits<Xapian::docid>::max()) {
            current_ = 0;
            return;
        }
        did = found + 1;
    }
}

void PhraseSource::next(double) {
    if (started_ && current_ == 0) return;
    if (started_ && current_ == std::numeric_limits<Xapian::docid>::max()) {
        current_ = 0;
        return;
    }
    settle(std::max(started_ ? current_ + 1 : 1, floor_));
}

void PhraseSource::skip_to(Xapian::docid did, double) {
    if (started_ && (current_ == 0 || did <= current_)) return;
    settle(std::max(did, floor_));
}

bool PhraseSource::check(Xapian::docid did, double) {
    // At the end, or already there or past it: where skip_to() would be.
    if (started_ && (current_ == 0 || did <= current_)) return true;
    // Its positions alone say whether it holds the phrase; the posting lists catch up at the next move.
    if (did >= floor_ && holds(did)) {
        started_ = true;
        current_ = did;
        return true;
    }
    if (did != std::numeric_limits<Xapian::docid>::max()) floor_ = std::max(floor_, did + 1);
    return false;
}

std::string PhraseSource::get_description() const {
    std::string description = "PhraseSource(";
    description += kind_ == Proximity::exact ? "exact" : kind_ == Proximity::ordered ? "ordered" : "near";
    description += ' ' + std::to_string(window_);
    for (const auto &part : parts_) {
        description += ' ';
        for (size_t i = 0; i < part.size(); ++i) description += (i ? "|" : "") + part[i];
    }
    return description + ")";
}

}  // namespace cxapian
