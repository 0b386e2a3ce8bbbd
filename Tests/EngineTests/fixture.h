// fixture.h — what the engine's tests share: a real Xapian index in a temporary directory, its documents made as
// Spotlite's DocumentBuilder makes them (title terms prefixed, with positions and no wdf; the detail's unprefixed;
// the value slots the ranking and the sorts read), and its queries parsed as SearchQuery parses them.

#ifndef ENGINE_TESTS_FIXTURE_H
#define ENGINE_TESTS_FIXTURE_H

#include "changes.h"
#include "match.h"
#include "positions.h"
#include "stem_terms.h"
#include "word_pairs.h"

#include <xapian.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace engine_tests {

// Spotlite's term prefixes and value slots (SearchIndex/TermPrefix.swift).
inline const std::string title_prefix = "S";
inline const std::string unique_prefix = "Q";
inline const std::string status_prefix = "XIS";
constexpr Xapian::valueno modified_slot = 1;
constexpr Xapian::valueno status_slot = 6;
constexpr Xapian::valueno title_words_slot = 8;
/// What says that a packing TempIndex packs its positions (SearchIndexLayout.positionsKey).
inline const cxapian::PositionsLayout packed_positions{"spotlite.positions"};

/// One document as the tests describe it.
struct Item {
    std::string title;
    std::string detail;
    double modified = 0;
    std::string status;
};

/// A glass database in a directory of its own under $TMPDIR, removed with the fixture (only that directory: the one
/// mkdtemp made for it).
class TempIndex {
  public:
    /// `pairs` and `stems`, if given, are applied to each document as the index writer applies them; with `packs`,
    /// its positions are packed into its documents' data (packed_positions), as Spotlite's index writer packs them.
    explicit TempIndex(std::shared_ptr<const cxapian::WordPairs> pairs = nullptr,
                       std::shared_ptr<const cxapian::StemTerms> stems = nullptr, bool packs = false);
    ~TempIndex();
    TempIndex(const TempIndex &) = delete;
    TempIndex &operator=(const TempIndex &) = delete;

    /// Adds `item` as document "Q<n>" (n from 1, in order of adding); its docid.
    Xapian::docid add(const Item &item);
    /// Adds `document` as it is (packed first, in a packing index); its docid.
    Xapian::docid add(Xapian::Document document);
    /// Replaces document "Q<number>" with `item` (added, for a number no document has); its docid.
    Xapian::docid replace(unsigned number, const Item &item);
    /// Deletes document "Q<number>".
    void remove(unsigned number);
    /// Commits, recording the documents written (as Spotlite's writer does: RecordingWriter).
    void commit() { writer_->commit(); }

    const std::string &path() const { return path_; }
    /// The database, for writes the fixture does not make (committed without a record by writable().commit()).
    Xapian::WritableDatabase &writable() { return writer_->database(); }
    cxapian::RecordingWriter &writer() { return *writer_; }
    /// A reader of the index as committed.
    std::unique_ptr<cxapian::Reader> reader() const;

  private:
    Xapian::Document document(unsigned number, const Item &item);

    std::string directory_;
    std::string path_;
    std::unique_ptr<cxapian::RecordingWriter> writer_;
    Xapian::TermGenerator generator_;
    std::shared_ptr<const cxapian::WordPairs> pairs_;
    std::shared_ptr<const cxapian::StemTerms> stems_;
    std::unique_ptr<cxapian::PositionTerms> positions_;
    unsigned added_ = 0;
};

/// `text` parsed as SearchQuery parses it: English stems (STEM_SOME), the default field the detail's terms and the
/// title's, words joined by AND, `status:` a boolean filter.
Xapian::Query parse(const std::string &text);

/// A deterministic corpus of `count` items over a small vocabulary (some words common, most rare), with dates that
/// repeat (ties in a sort) and three statuses.
std::vector<Item> corpus(unsigned count);

/// The options of a search ranked as Spotlite ranks (SearchRanking.standard), 20 hits a page.
cxapian::MatchOptions ranked_options();

/// The page's hits: docid and weight, in order.
std::vector<std::pair<Xapian::docid, double>> hits(const cxapian::MatchResult &result);
std::vector<Xapian::docid> docids(const cxapian::MatchResult &result);

/// Runs match() and returns its result.
std::unique_ptr<cxapian::MatchResult> run(cxapian::Reader &reader, const Xapian::Query &query,
                                          const cxapian::MatchOptions &options);

/// Every document `query` matches in `database` (weighing nothing), ascending.
std::vector<Xapian::docid> matching(const Xapian::Database &database, const Xapian::Query &query);

}  // namespace engine_tests

#endif
