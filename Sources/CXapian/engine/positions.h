// positions.h — a document's positions packed into its data, and phrases checked against them (internal to
// CXapian).
//
// Xapian 1.4's glass backend keeps one B-tree item per (term, document) in its position table: the term and the docid
// again as the item's key, a header and a slot, for the one or two positions most items hold. On an index of short
// documents with many distinct words that table is the index's largest, and no setting changes its items
// (docs/decisions/0005-index-size.md). An index made by Spotlite keeps the positions of its documents (but the
// longest) as their data: one string each, the positional terms in the order of the text, each written as its number
// among the index's positional terms (PositionTerms, kept in the index's metadata), a byte or two for most.
//
// A phrase or a NEAR is then a PhraseSource: the documents holding a term of each of its parts, each checked against
// its packed positions as Xapian 1.4 checks positions (ExactPhrasePostList, PhrasePostList, NearPostList), with their
// match estimates. check_positions() puts one in place of every OP_PHRASE and OP_NEAR of a query about to be matched,
// so the rewrites before it (pair terms, the fielded ranking) still see Xapian's operators. An index that packs none
// (one made before, or a copy of one) is read from Xapian's own position lists instead: the same check over either.

#ifndef CXAPIAN_ENGINE_POSITIONS_H
#define CXAPIAN_ENGINE_POSITIONS_H

#include "document_bytes.h"
#include "term_lookups.h"
#include "varint.h"

#include <xapian.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace cxapian {

class PositionsTable;

/// Where an index keeps its documents' positions: the metadata key that says it packs them into its documents' data
/// (its value: the next number PositionTerms gives). An empty key: read Xapian's position lists, and leave Xapian's
/// phrase operators as they are.
struct PositionsLayout {
    std::string key;
    /// The reader's table of every document's packed positions at the revision searched (nullptr: read each from the
    /// index); used for the one database it was made from.
    std::shared_ptr<const PositionsTable> table;
    /// The match's lookups of term frequencies and metadata (the terms' numbers), used for the one database they are
    /// of (nullptr: read from the index). Not thread-safe: set only for the match that made them.
    std::shared_ptr<TermLookups> lookups;

    bool empty() const { return key.empty(); }
};

/// Every document's packed positions in one table (its data: DocumentBytes), kept by a long-lived reader for one
/// revision (kept_tables.h, made off the request path): a phrase's check looks a candidate's positions up by docid.
/// Reading each from the index is a look-up in its data table, and the candidates of a phrase whose words many
/// documents hold are spread over most of its blocks, each read whole, where one pass reads them all in order.
class PositionsTable : public DocumentBytes {
  public:
    /// A table holds at most this many bytes of positions: no table is made for an index with more (its phrases read
    /// each candidate's from the index).
    static constexpr size_t max_bytes = size_t(128) << 20;

    /// Reads the data of every document of `database` (one database) at its current revision, up to max_bytes.
    explicit PositionsTable(const Xapian::Database &database) : DocumentBytes(database, std::nullopt, max_bytes) {}
    /// `previous` (of an earlier revision of `database`) with the data of the documents `changed` (ascending) since
    /// read anew; the runs they leave as they were are `previous`'s own.
    PositionsTable(const PositionsTable &previous, const Xapian::Database &database,
                   const std::vector<Xapian::docid> &changed)
        : DocumentBytes(previous, database, changed) {}

    /// The packed positions of `did` (empty for a document with none packed).
    std::string_view positions(Xapian::docid did) const { return bytes(did); }
};

/// The numbers of an index's positional terms: each term is given one when a document first holds it at a position,
/// kept in the index's metadata (`entry_prefix` + term, the number as a varint; the next number, in decimal, under the
/// layout's key). Numbers are never taken back: a term no document holds keeps its number until the next rebuild.
///
/// Safe to use from several threads at once, each with its own database: the shards of a rebuild share one, fresh,
/// so that a term has one number in all of them (each shard writes the numbers it gave; compact() keeps the largest
/// next number of the shards').
class PositionTerms {
  public:
    /// What the metadata keys of the numbers start with: no Spotlite key does ("spotlite.…").
    static const std::string entry_prefix;
    /// A term longer than this keeps no positions (a metadata key is bounded); the term generator makes none longer
    /// than its longest word (64 bytes) and a prefix.
    static constexpr size_t max_term_length = 200;
    /// At most this many numbers: a position's entry then fits its varint in 32 bits.
    static constexpr uint32_t max_numbers = uint32_t(1) << 30;
    /// A long-lived writer forgets what it read past this many numbers (the metadata still has them).
    static constexpr size_t max_remembered = size_t(1) << 20;

    /// For the index whose layout key is `key`. `reads`: numbers not known here are read from the database asked for
    /// (an index written over time); false for a fresh index built in shards, whose numbers this object alone gives.
    PositionTerms(std::string key, bool reads) : key_(std::move(key)), reads_(reads) {}

    /// The number of positional term `term` in the index `database` is open on, given (and written into `database`'s
    /// metadata) if it has none. Throws Xapian::InvalidOperationError past max_numbers.
    uint32_t number(const std::string &term, Xapian::WritableDatabase &database);

    /// Forgets the numbers it read or gave: the metadata it wrote may be gone (a cancelled transaction).
    void forget();

  private:
    std::string key_;
    bool reads_;
    std::mutex mutex_;
    std::unordered_map<std::string, uint32_t> numbers_;
    uint32_t next_ = 0;
    bool next_known_ = false;
};

/// Xapian's compaction of a build's shards into one index, keeping the largest of their next numbers under the
/// layout's key (each shard wrote the one it knew when it last gave a number) and, for every other key, the first
/// shard's value (what Xapian's compaction keeps).
class PositionsCompactor : public Xapian::Compactor {
  public:
    explicit PositionsCompactor(std::string key) : key_(std::move(key)) {}

    std::string resolve_duplicate_metadata(const std::string &key, size_t num_tags, const std::string tags[]) override;

  private:
    std::string key_;
};

/// A document with more positions than this keeps them in Xapian's position table: a phrase's check reads a document's
/// packed positions whole, and Xapian's lists only for the phrase's words. Few documents are that long, and an index's
/// bytes of positions are mostly the B-tree items of its many short ones.
constexpr size_t max_packed_positions = 256;

/// Packs the positions of `document` (its text indexed) into its data and removes them from its terms, whose wdf
/// stay as they are: the terms' numbers from `terms`, new ones written into `database`. A document with no positional
/// term gets no data, nor one with more than max_packed_positions, which keeps Xapian's.
void pack_positions(Xapian::Document &document, PositionTerms &terms, Xapian::WritableDatabase &database);

/// Calls `body(position, number)` for each entry of a document's packed positions, in the order of the text
/// (ascending positions, terms at one position by number). The position is 64 bits wide, which no sum of the packed
/// distances overflows: a caller keeping one checks that it fits a Xapian::termpos. Throws
/// Xapian::DatabaseCorruptError for data that are not packed positions.
template <typename Body> void unpack_positions(std::string_view packed, Body body);

/// How a phrase's parts must stand: each at the position after the one before (an exact phrase, Xapian's
/// ExactPhrasePostList), in order within a window (PhrasePostList), or in any order within a window (NearPostList).
enum class Proximity { exact, ordered, near };

/// Whether the parts of a phrase stand as `kind` asks in one document: `lists[i]` holds the positions of part i
/// there, ascending, without repeats (each non-empty). `window`: how many positions the parts may span (ordered,
/// near). Exact: some base p with p + i in lists[i] for every i. Ordered: positions p0 < p1 < … from the lists in
/// turn with the last less than `window` past the first. Near: a distinct position from each list, the highest less
/// than `window` past the lowest.
bool phrase_holds(Proximity kind, Xapian::termpos window, const std::vector<std::vector<Xapian::termpos>> &lists);

/// The positions of a phrase's parts in one document after another: from each document's packed positions where the
/// database packs them (PositionsLayout), else (another index, or a long document) from Xapian's position lists.
class PositionReader {
  public:
    /// For `parts` (each the terms any of which the part may be) in `database` (one database, not several).
    void open(const Xapian::Database &database, const PositionsLayout &layout,
              const std::vector<std::vector<std::string>> &parts);

    /// Whether a part has no term in the database (the phrase matches nothing there).
    bool hopeless() const { return hopeless_; }

    /// Into `lists[i]`, the positions of part i in document `did` (ascending, without repeats); false, as soon as
    /// one is known to be empty, for a document that lacks a part.
    bool read(Xapian::docid did, std::vector<std::vector<Xapian::termpos>> &lists);

  private:
    Xapian::Database database_;
    std::vector<std::vector<std::string>> parts_;
    bool packed_ = false;
    bool hopeless_ = false;
    /// The reader's table of packed positions, if it has one for `database_` as it is now.
    const PositionsTable *table_ = nullptr;
    std::shared_ptr<const PositionsTable> held_;
    /// Packed: (term number, part) for every term of every part, by number (a term may stand in several parts).
    std::vector<std::pair<uint32_t, uint32_t>> numbers_;
    /// Bit (number mod 64) set for each of `numbers_`: most of a document's entries are passed over by one test.
    uint64_t mask_ = 0;
    std::string value_;
};

/// A phrase or NEAR of Xapian's, matched against PositionReader's positions: the documents that hold a term of each
/// part (walked as Xapian's AND walks them) and whose positions hold the phrase (phrase_holds). It weighs nothing;
/// check_positions() puts the parts' weight beside it.
///
/// Its estimate is that of the operator it replaces, in one of two roles. Alone (a phrase weighed by nothing, beside
/// its words), it is Xapian 1.4's phrase estimate: a share of its parts' AND (a quarter for an exact phrase, a third in
/// a window, half for NEAR). As a `filter`, ANDed with its parts, it is that share of the whole database, so that the
/// AND's estimate is the phrase's as Xapian's is, where Xapian checks a phrase's positions after the AND around it
/// (its position filters): an estimate that high leaves the lead of the AND to its terms and the rest beside it, and
/// this source is asked only about the documents they all hold (check()).
class PhraseSource : public Xapian::PostingSource {
  public:
    PhraseSource(std::vector<std::vector<std::string>> parts, Proximity kind, Xapian::termpos window,
                 PositionsLayout layout, bool filter = false);

    PhraseSource *clone() const override;
    void init(const Xapian::Database &database) override;
    Xapian::doccount get_termfreq_min() const override { return 0; }
    Xapian::doccount get_termfreq_est() const override { return termfreq_est_; }
    Xapian::doccount get_termfreq_max() const override { return termfreq_max_; }
    void next(double min_wt) override;
    void skip_to(Xapian::docid did, double min_wt) override;
    bool check(Xapian::docid did, double min_wt) override;
    bool at_end() const override { return started_ && current_ == 0; }
    Xapian::docid get_docid() const override { return current_; }
    std::string get_description() const override;

  private:
    /// One term's posting list, and the document it is at (0 past its end).
    struct List {
        Xapian::PostingIterator at;
        Xapian::PostingIterator end;
        Xapian::docid docid;
    };
    /// Moves to the first document from `did` on that holds the phrase (0 past the last).
    void settle(Xapian::docid did);
    /// The first document from `did` on that holds a term of every part (0: none), the lists moved there.
    Xapian::docid together(Xapian::docid did);
    /// Whether document `did` holds the phrase, by its positions.
    bool holds(Xapian::docid did);

    std::vector<std::vector<std::string>> parts_;
    Proximity kind_;
    Xapian::termpos window_;
    PositionsLayout layout_;
    bool filter_;
    Xapian::Database database_;
    /// Each part's posting lists (one per term of the part the database holds).
    std::vector<std::vector<List>> lists_;
    PositionReader reader_;
    std::vector<std::vector<Xapian::termpos>> positions_;
    Xapian::docid current_ = 0;
    /// Where the next move starts at least: past a document check() found without the phrase.
    Xapian::docid floor_ = 1;
    bool started_ = false;
    Xapian::doccount termfreq_est_ = 0;
    Xapian::doccount termfreq_max_ = 0;
};

/// `query` with each OP_PHRASE and OP_NEAR (under the operators whose subqueries stand alone, and scaled ones) a
/// PhraseSource over the same parts, as a filter ANDed with its parts, which weigh what Xapian's operator weighed and
/// join the AND around it as Xapian's do: where it is scaled by 0 (weighed by nothing), the source alone. A part is a
/// term, or an OR or SYNONYM of terms. `query` itself for an empty layout. Throws Xapian::UnimplementedError for a
/// phrase it cannot check (a part of another kind, or a phrase under an operator of another kind): an index without
/// Xapian's positions would match it as an AND.
Xapian::Query check_positions(const Xapian::Query &query, const PositionsLayout &layout);

/// Whether `query` holds an OP_PHRASE or OP_NEAR anywhere.
bool holds_positional(const Xapian::Query &query);

// ---- the packed positions' format ----
//
// One entry per (position, term), in the order of the text: a varint of the term's number + 1, at the position after
// the entry before's (the first entry's: after 0). Where the distance is not 1 (the gap between title and detail, terms
// at one position), a 0 and a varint of the distance come before the entry. Most entries are the varint alone: one
// byte for the 127 first numbers, two up to 16,383, three up to two million.

/// Reads a varint of one to three bytes from `at` (at least three bytes before the end) without a branch on its
/// length, which no branch predicts in a text's terms: false, `at` where it was, for a longer one.
inline bool read_short_varint(const char *&at, uint32_t &out) {
    const uint32_t first = static_cast<unsigned char>(at[0]);
    const uint32_t second = static_cast<unsigned char>(at[1]);
    const uint32_t third = static_cast<unsigned char>(at[2]);
    const uint32_t two = first >> 7;             // a second byte follows
    const uint32_t three = two & (second >> 7);  // and a third
    if ((three & (third >> 7)) != 0) return false;
    out = (first & 0x7f) | (((second & 0x7f) << 7) & (0u - two)) | (((third & 0x7f) << 14) & (0u - three));
    at += 1 + two + three;
    return true;
}

/// The varint at `at` (before `end`), `at` moved past it. Throws Xapian::DatabaseCorruptError for a truncated one.
inline uint32_t next_varint(const char *&at, const char *end) {
    uint32_t out = 0;
    if ((end - at >= 3 && read_short_varint(at, out)) || read_varint(at, end, out)) return out;
    throw Xapian::DatabaseCorruptError("a document's packed positions are cut short");
}

template <typename Body> void unpack_positions(std::string_view packed, Body body) {
    const char *at = packed.data();
    const char *const end = at + packed.size();
    uint64_t position = 0;
    while (at != end) {
        uint32_t entry = next_varint(at, end);
        if (entry != 0) {
            body(++position, entry - 1);
            continue;
        }
        // A distance, then the entry.
        position += next_varint(at, end);
        entry = next_varint(at, end);
        if (entry == 0) throw Xapian::DatabaseCorruptError("a document's packed positions hold two distances");
        body(position, entry - 1);
    }
}

}  // namespace cxapian

#endif
