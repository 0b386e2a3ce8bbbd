// cxapian.cpp — Xapian behind a C API. Every exported function is noexcept and catches everything:
// a C++ exception unwinding into Swift frames is undefined behaviour, so none ever leaves this file.

#include "cxapian.h"
#include "fielded_ranking.h"
#include "index_layout.h"
#include "slot_values.h"

#include <xapian.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

struct cxapian_error {
    char *error_class;
    char *message;
};

struct cxapian_document {
    Xapian::Document document;
};

struct cxapian_term_generator {
    Xapian::TermGenerator generator;
};

namespace cxapian {

/// The block size of the databases made here (Xapian's default is 8 KiB). Each B-tree entry of a posting list,
/// position list or term list carries a few bytes of its own, and an index of short documents has millions: 16 KiB
/// blocks make a compacted index smaller; 64 KiB ones, a little smaller still, read four times the bytes per block
/// visited (docs/decisions/0005-index-size.md).
constexpr unsigned block_size = 16384;

}  // namespace cxapian

struct cxapian_database {
    Xapian::Database database;
    /// Where `database` was opened (one database; empty for several): with its UUID and revision, what names its
    /// tables among the readers of this process (cxapian::SharedTables).
    std::string path;
    /// The databases `database` combines, when it combines several (they share its state: reopening it reopens
    /// them): facets are counted in each, since a match spy is not told which one a document is in.
    std::vector<Xapian::Database> parts;
    /// The title-word counts of `database` for the ranking's title similarity, when its searches ask for them.
    cxapian::TitleWordsCache title_words;
    /// The documents' lengths of `database` for the ranking's WordSources, when its searches ask for them.
    cxapian::RevisionTableCache<cxapian::DocLengths> doc_lengths;
    /// The value slots of `database` its searches sort by or range over, when they ask for them.
    cxapian::SlotValuesCache slot_values;
    /// What `database`'s metadata records of its terms (its common words, its left-out stem terms).
    cxapian::IndexLayoutCache layout;
};

struct cxapian_writable_database {
    Xapian::WritableDatabase database;
};

struct cxapian_query {
    Xapian::Query query;
    /// The value ranges `query` was built with, which a search with kept tables reads from them (see
    /// cxapian::with_value_tables).
    std::vector<cxapian::ValueRangeLeaf> ranges;
};

struct cxapian_query_parser {
    Xapian::QueryParser parser;
    // A field mapper's rejection, raised after parse_query returns: throwing from inside a FieldProcessor
    // unwinds through Xapian's generated parser, which leaks the terms it holds (seen with AddressSanitizer).
    std::string rejection;
    bool rejected = false;
    /// The value ranges the field processors made during a parse, for its query.
    std::vector<cxapian::ValueRangeLeaf> ranges;
};

/// Value counts of one facet slot over the matches in one database of the searched ones (shard: its position).
struct cxapian_facet {
    uint32_t slot;
    uint32_t shard;
    std::unique_ptr<Xapian::ValueCountMatchSpy> spy;
};

struct cxapian_mset {
    Xapian::MSet mset;
    std::vector<cxapian_facet> facets;
    /// When matching stops (the options' time limit from the start of cxapian_enquire), for every match it runs; the
    /// clock's largest value for no limit.
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
    /// Set by a match that stopped at the deadline: its counts are then of the matches examined, not all.
    std::shared_ptr<std::atomic<bool>> stopped = std::make_shared<std::atomic<bool>>(false);
    /// How many databases the searched one combines (a hit's is (docid - 1) % shards).
    Xapian::doccount shards = 1;
    /// The match counts, from the match over every candidate (a rescored page's own MSet counts only the window).
    Xapian::doccount estimated = 0;
    Xapian::doccount lower_bound = 0;
    Xapian::doccount upper_bound = 0;
    /// The page within `mset`: a rescored MSet holds the whole window, ranked at once so that every page of it is
    /// cut from the same ranking.
    Xapian::doccount page_first = 0;
    Xapian::doccount page_size = 0;
    /// A rescored window ranked here rather than by a second match (match_rescored): its documents with their
    /// weights, best first; the page is cut from it, and `mset` holds the first match. Empty otherwise.
    std::vector<std::pair<Xapian::docid, double>> ranked;
    /// The database searched, for the hits' documents and for snippets.
    Xapian::Database database;
    /// Where the ranked query names no terms (the fielded ranking weighs words in posting sources): the parsed
    /// query, whose terms snippets highlight.
    Xapian::Query highlight_query;
    mutable std::optional<Xapian::MSet> highlight_mset;
    /// The term frequencies the fielded ranking's rewrite read (nullptr without one).
    std::shared_ptr<cxapian::TermFrequencies> frequencies;

    /// Hit `index` of the page: its docid and weight, from `ranked` or from `mset`.
    std::pair<Xapian::docid, double> hit(uint32_t index) const {
        if (!ranked.empty()) return ranked[page_first + index];
        auto at = mset[page_first + index];
        return {*at, at.get_weight()};
    }

    /// The document of a hit. A hit is a document of `database` at this revision, so it is opened as valid: Xapian
    /// does not read its length first to check that it exists (a visible part of a two-word search).
    Xapian::Document document(Xapian::docid did) const { return database.get_document(did, Xapian::DOC_ASSUME_VALID); }

    /// The match set whose query's terms a snippet highlights: for the parsed query, a weightless match of no
    /// documents, made on the first snippet asked for (it weighs the terms alike, as the weightless terms the ranked
    /// query once held did, and costs a search without snippets nothing). It reads the terms' frequencies from the
    /// database the page came from, as reading a hit's data does.
    const Xapian::MSet &for_snippets() const {
        if (highlight_query.empty()) return mset;
        if (!highlight_mset) {
            Xapian::Enquire enquire(database);
            enquire.set_query(highlight_query);
            enquire.set_weighting_scheme(Xapian::BoolWeight());
            highlight_mset = enquire.get_mset(0, 0);
        }
        return *highlight_mset;
    }
};

namespace {

// Returned when even the error cannot be allocated; never freed.
cxapian_error out_of_memory_error = {const_cast<char *>("std::bad_alloc"),
                                     const_cast<char *>("out of memory")};

char *copy_string(const char *text, size_t length) noexcept {
    char *copy = static_cast<char *>(std::malloc(length + 1));
    if (copy == nullptr) return nullptr;
    if (length > 0) std::memcpy(copy, text, length);
    copy[length] = '\0';
    return copy;
}

char *copy_string(const std::string &text) noexcept { return copy_string(text.data(), text.size()); }

cxapian_error *make_error(const char *error_class, const std::string &message) noexcept {
    auto *error = static_cast<cxapian_error *>(std::malloc(sizeof(cxapian_error)));
    if (error == nullptr) return &out_of_memory_error;
    error->error_class = copy_string(error_class, std::strlen(error_class));
    error->message = copy_string(message);
    if (error->error_class == nullptr || error->message == nullptr) {
        std::free(error->error_class);
        std::free(error->message);
        std::free(error);
        return &out_of_memory_error;
    }
    return error;
}

// The Lippincott function: called from inside a catch (...) block, it rethrows the exception in flight
// and turns it into a cxapian_error. One place that knows every kind of exception we may meet.
cxapian_error *error_from_current_exception() noexcept {
    try {
        throw;
    } catch (const Xapian::Error &e) {
        std::string message = e.get_msg();
        if (!e.get_context().empty()) message += " (" + e.get_context() + ")";
        if (e.get_error_string() != nullptr) message += std::string(": ") + e.get_error_string();
        return make_error(e.get_type(), message);
    } catch (const std::bad_alloc &) {
        return &out_of_memory_error;
    } catch (const std::exception &e) {
        return make_error("std::exception", e.what());
    } catch (...) {
        return make_error("unknown", "an unknown C++ exception was thrown");
    }
}

void report(cxapian_error **error) noexcept {
    cxapian_error *caught = error_from_current_exception();
    if (error != nullptr) {
        *error = caught;
    } else {
        cxapian_error_free(caught);
    }
}

// Copies a std::string into a malloc'ed (pointer, length) pair for the caller.
bool hand_out(const std::string &value, char **out, size_t *out_length) {
    *out_length = value.size();
    *out = nullptr;
    if (value.empty()) return true;
    *out = copy_string(value);
    if (*out == nullptr) throw std::bad_alloc();
    return true;
}

Xapian::Stem make_stemmer(const char *language) {
    if (language == nullptr || *language == '\0') return Xapian::Stem();
    return Xapian::Stem(language);
}

/// What `database`'s metadata records of its terms under the keys `layout` names (nothing for a NULL layout).
cxapian::IndexLayout index_layout(cxapian_database &database, const cxapian_index_layout *layout) {
    auto text = [](const char *value) { return value != nullptr ? std::string(value) : std::string(); };
    if (layout == nullptr) return database.layout.get(database.database, "", "", "", "", "");
    return database.layout.get(database.database, text(layout->word_pairs_key), text(layout->stems_key),
                               text(layout->title_prefix), text(layout->container_prefix),
                               text(layout->domain_prefix));
}

/// The fielded ranking `ranking` describes, over an index of `layout`.
cxapian::FieldedRanking fielded_ranking_of(const cxapian_fielded_ranking &ranking, const cxapian::IndexLayout &layout) {
    cxapian::FieldedRanking fielded{ranking.k1, ranking.b, ranking.title_bonus,
                                    ranking.title_prefix != nullptr ? ranking.title_prefix : "", ranking.title_match,
                                    ranking.title_words_slot};
    fielded.stems = layout.stems;
    return fielded;
}

// A boolean field whose text -> term mapping lives on the other side of the boundary (in Swift).
class MappedFieldProcessor : public Xapian::FieldProcessor {
  public:
    MappedFieldProcessor(cxapian_field_mapper mapper, void *context, cxapian_query_parser *owner)
        : mapper_(mapper), context_(context), owner_(owner) {}

    Xapian::Query operator()(const std::string &text) override {
        cxapian_field_result result = {};
        int status = mapper_(context_, text.data(), text.size(), &result);
        Xapian::Query query = Xapian::Query::MatchNothing;
        try {
            if (status == CXAPIAN_FIELD_REJECTED) {
                if (!owner_->rejected) {
                    owner_->rejected = true;
                    owner_->rejection = result.message != nullptr ? result.message : "invalid field value";
                }
            } else if (status == CXAPIAN_FIELD_TERM && result.term != nullptr) {
                query = Xapian::Query(std::string(result.term, result.term_length));
            } else if (status == CXAPIAN_FIELD_VALUE_RANGE) {
                query = value_range(result.slot, result.begin, result.begin_length, result.end, result.end_length,
                                    &owner_->ranges);
            }
        } catch (...) {
            free_result(result);
            throw;
        }
        free_result(result);
        return query;
    }

    /// The range (a query matching all for no bound); a bounded one is recorded in `ranges`, if given.
    static Xapian::Query value_range(uint32_t slot, const char *begin, size_t begin_length, const char *end,
                                     size_t end_length, std::vector<cxapian::ValueRangeLeaf> *ranges) {
        auto bound = [](const char *text, size_t length) {
            return text != nullptr ? std::optional<std::string>(std::string(text, length)) : std::nullopt;
        };
        cxapian::ValueRangeLeaf range =
            cxapian::ValueRangeLeaf::make(slot, bound(begin, begin_length), bound(end, end_length));
        if (ranges != nullptr && range.bounded()) ranges->push_back(range);
        return range.leaf;
    }

  private:
    static void free_result(cxapian_field_result &result) {
        std::free(result.term);
        std::free(result.begin);
        std::free(result.end);
        std::free(result.message);
    }

  private:
    cxapian_field_mapper mapper_;
    void *context_;
    cxapian_query_parser *owner_;  // outlives the processor: the parser owns it
};

}  // namespace

#define CXAPIAN_GUARD_BEGIN try {
#define CXAPIAN_GUARD_END(error) \
    return true;                 \
    }                            \
    catch (...) {                \
        report(error);           \
        return false;            \
    }

namespace {

/// `path` made absolute (symbolic links resolved), or as given if it cannot be.
std::string absolute_path(const char *path) {
    std::unique_ptr<char, decltype(&std::free)> resolved(::realpath(path, nullptr), &std::free);
    return resolved ? std::string(resolved.get()) : std::string(path);
}

/// Every document, until a deadline: at it the list ends, and a match it filters ends with it, keeping the best of
/// the matches examined so far (what Enquire::set_time_limit does). Xapian 1.4's time limit arms a POSIX timer whose
/// SIGEV_THREAD notification can still run after the match has returned and its timer is deleted, and then writes a
/// flag into the match's stack frame, since reused: `spotlite serve` crashed (SIGSEGV, SIGILL) within seconds of
/// searches that outran --search-time-limit under concurrent load. This asks the clock instead, every 64 documents
/// the filter visits.
class DeadlineSource : public Xapian::PostingSource {
  public:
    DeadlineSource(std::chrono::steady_clock::time_point deadline, std::shared_ptr<std::atomic<bool>> stopped)
        : deadline_(deadline), stopped_(std::move(stopped)) {}

    DeadlineSource *clone() const override { return new DeadlineSource(deadline_, stopped_); }

    void init(const Xapian::Database &database) override {
        last_ = database.get_lastdocid();
        documents_ = database.get_doccount();
        did_ = 0;
        ended_ = false;
        set_maxweight(0);
    }

    // It says it holds every document, so that a filter's bounds and estimate are those of the query it filters.
    Xapian::doccount get_termfreq_min() const override { return documents_; }
    Xapian::doccount get_termfreq_est() const override { return documents_; }
    Xapian::doccount get_termfreq_max() const override { return documents_; }

    void next(double) override { move_to(did_ + 1); }
    void skip_to(Xapian::docid did, double) override { move_to(std::max(did, did_)); }
    bool at_end() const override { return ended_; }
    Xapian::docid get_docid() const override { return did_; }
    std::string get_description() const override { return "DeadlineSource"; }

  private:
    void move_to(Xapian::docid did) {
        did_ = did;
        if (did_ == 0 || did_ > last_) {
            ended_ = true;
        } else if ((++visits_ & 63) == 0 && std::chrono::steady_clock::now() >= deadline_) {
            ended_ = true;
            stopped_->store(true);
        }
    }

    std::chrono::steady_clock::time_point deadline_;
    std::shared_ptr<std::atomic<bool>> stopped_;
    Xapian::docid last_ = 0;
    Xapian::doccount documents_ = 0;
    Xapian::docid did_ = 0;
    uint32_t visits_ = 0;
    bool ended_ = false;
};

/// `query`, stopped at `result`'s deadline if it has one (see DeadlineSource).
Xapian::Query until_deadline(const Xapian::Query &query, const cxapian_mset &result) {
    if (result.deadline == std::chrono::steady_clock::time_point::max()) return query;
    auto *source = new DeadlineSource(result.deadline, result.stopped);
    return Xapian::Query(Xapian::Query::OP_FILTER, query, Xapian::Query(source->release()));
}

}  // namespace

extern "C" {

/* ---- errors and memory ---- */

const char *cxapian_error_class(const cxapian_error *error) { return error->error_class; }
const char *cxapian_error_message(const cxapian_error *error) { return error->message; }

void cxapian_error_free(cxapian_error *error) {
    if (error == nullptr || error == &out_of_memory_error) return;
    std::free(error->error_class);
    std::free(error->message);
    std::free(error);
}

void cxapian_free(void *pointer) { std::free(pointer); }

const char *cxapian_version(void) { return Xapian::version_string(); }

size_t cxapian_sortable_serialise(double value, char out[16]) {
    // The buffer form never throws and never allocates.
    return Xapian::sortable_serialise_(value, out);
}

double cxapian_sortable_unserialise(const char *bytes, size_t length) {
    try {
        return Xapian::sortable_unserialise(std::string(bytes, length));
    } catch (...) {
        return 0;
    }
}

/* ---- documents ---- */

cxapian_document *cxapian_document_new(void) { return new (std::nothrow) cxapian_document(); }

void cxapian_document_free(cxapian_document *document) { delete document; }

bool cxapian_document_set_data(cxapian_document *document, const char *data, size_t length,
                               cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    document->document.set_data(std::string(data, length));
    CXAPIAN_GUARD_END(error)
}

bool cxapian_document_add_term(cxapian_document *document, const char *term, size_t length,
                               uint32_t wdf_increment, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    document->document.add_term(std::string(term, length), wdf_increment);
    CXAPIAN_GUARD_END(error)
}

bool cxapian_document_add_boolean_term(cxapian_document *document, const char *term, size_t length,
                                       cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    document->document.add_boolean_term(std::string(term, length));
    CXAPIAN_GUARD_END(error)
}

bool cxapian_document_add_value(cxapian_document *document, uint32_t slot, const char *value, size_t length,
                                cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    document->document.add_value(slot, std::string(value, length));
    CXAPIAN_GUARD_END(error)
}

/* ---- word pairs ---- */

struct cxapian_word_pairs {
    cxapian::WordPairs pairs;
};

struct cxapian_word_sample {
    cxapian::WordSample sample;
};

cxapian_word_pairs *cxapian_word_pairs_new(const char *words, size_t length, const char *title_prefix,
                                           size_t prefix_length) {
    try {
        return new cxapian_word_pairs{
            cxapian::WordPairs(std::string(words, length), std::string(title_prefix, prefix_length))};
    } catch (...) {
        return nullptr;
    }
}

void cxapian_word_pairs_free(cxapian_word_pairs *pairs) { delete pairs; }

bool cxapian_document_add_word_pairs(cxapian_document *document, const cxapian_word_pairs *pairs,
                                     cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    pairs->pairs.add_to(document->document);
    CXAPIAN_GUARD_END(error)
}

cxapian_word_sample *cxapian_word_sample_new(const char *title_prefix, size_t prefix_length) {
    try {
        return new cxapian_word_sample{cxapian::WordSample(std::string(title_prefix, prefix_length))};
    } catch (...) {
        return nullptr;
    }
}

void cxapian_word_sample_free(cxapian_word_sample *sample) { delete sample; }

bool cxapian_word_sample_add(cxapian_word_sample *sample, const cxapian_document *document, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    sample->sample.add(document->document);
    CXAPIAN_GUARD_END(error)
}

bool cxapian_word_sample_choose(const cxapian_word_sample *sample, double min_share, uint32_t min_documents,
                                uint32_t max_words, char **out, size_t *out_length, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    hand_out(sample->sample.choose(min_share, min_documents, max_words), out, out_length);
    CXAPIAN_GUARD_END(error)
}

/* ---- stem terms ---- */

struct cxapian_stem_terms {
    cxapian::StemTerms stems;
};

cxapian_stem_terms *cxapian_stem_terms_new(const char *language, const char *title_prefix, size_t prefix_length) {
    try {
        return new cxapian_stem_terms{cxapian::StemTerms(language, std::string(title_prefix, prefix_length))};
    } catch (...) {
        return nullptr;
    }
}

void cxapian_stem_terms_free(cxapian_stem_terms *stems) { delete stems; }

bool cxapian_document_prune_stems(cxapian_document *document, const cxapian_stem_terms *stems, const char *length_term,
                                  size_t length, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    stems->stems.prune(document->document, std::string(length_term, length));
    CXAPIAN_GUARD_END(error)
}

/* ---- term generator ---- */

cxapian_term_generator *cxapian_term_generator_new(void) { return new (std::nothrow) cxapian_term_generator(); }

void cxapian_term_generator_free(cxapian_term_generator *generator) { delete generator; }

bool cxapian_term_generator_set_stemmer(cxapian_term_generator *generator, const char *language,
                                        cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    generator->generator.set_stemmer(make_stemmer(language));
    CXAPIAN_GUARD_END(error)
}

void cxapian_term_generator_set_max_word_length(cxapian_term_generator *generator, uint32_t length) {
    try {
        generator->generator.set_max_word_length(length);
    } catch (...) {
        // Only a bad_alloc could get here, and the setter allocates nothing.
    }
}

bool cxapian_term_generator_set_document(cxapian_term_generator *generator, cxapian_document *document,
                                         cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    generator->generator.set_document(document->document);
    CXAPIAN_GUARD_END(error)
}

bool cxapian_term_generator_index_text(cxapian_term_generator *generator, const char *text, size_t length,
                                       uint32_t wdf_increment, const char *prefix, size_t prefix_length,
                                       cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    generator->generator.index_text(Xapian::Utf8Iterator(text, length), wdf_increment,
                                    std::string(prefix, prefix_length));
    CXAPIAN_GUARD_END(error)
}

void cxapian_term_generator_increase_termpos(cxapian_term_generator *generator, uint32_t delta) {
    try {
        generator->generator.increase_termpos(delta);
    } catch (...) {
    }
}

void cxapian_term_generator_enable_cjk_ngrams(cxapian_term_generator *generator) {
    try {
        generator->generator.set_flags(Xapian::TermGenerator::FLAG_CJK_NGRAM,
                                       ~Xapian::TermGenerator::flags(Xapian::TermGenerator::FLAG_CJK_NGRAM));
    } catch (...) {
        // set_flags allocates nothing and throws nothing.
    }
}

/* ---- read-only databases ---- */

bool cxapian_database_open(const char *path, cxapian_database **out, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    *out = nullptr;
    *out = new cxapian_database{Xapian::Database(path), absolute_path(path)};
    CXAPIAN_GUARD_END(error)
}

bool cxapian_database_open_many(const char *const *paths, size_t count, cxapian_database **out,
                                cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    *out = nullptr;
    Xapian::Database all;
    std::vector<Xapian::Database> parts;
    for (size_t i = 0; i < count; ++i) {
        parts.emplace_back(paths[i]);
        all.add_database(parts.back());
    }
    *out = new cxapian_database{all, count == 1 ? absolute_path(paths[0]) : std::string(),
                                count > 1 ? std::move(parts) : std::vector<Xapian::Database>()};
    CXAPIAN_GUARD_END(error)
}

void cxapian_database_free(cxapian_database *database) { delete database; }

uint64_t cxapian_database_tables_made(cxapian_database *database) {
    try {
        return database->title_words.tables_made() + database->doc_lengths.tables_made() +
               database->slot_values.tables_made();
    } catch (...) {
        return 0;  // a lock that cannot be taken: nothing made is known
    }
}

bool cxapian_database_reopen(cxapian_database *database, bool *changed, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    *changed = database->database.reopen();
    CXAPIAN_GUARD_END(error)
}

bool cxapian_database_doccount(cxapian_database *database, uint32_t *out, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    *out = database->database.get_doccount();
    CXAPIAN_GUARD_END(error)
}

bool cxapian_database_term_exists(cxapian_database *database, const char *term, size_t length, bool *out,
                                  cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    *out = database->database.term_exists(std::string(term, length));
    CXAPIAN_GUARD_END(error)
}

bool cxapian_database_get_metadata(cxapian_database *database, size_t part, const char *key, size_t key_length,
                                   char **out, size_t *out_length, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    if (part > 0 && part >= database->parts.size()) throw Xapian::InvalidArgumentError("no such database part");
    const Xapian::Database &source = database->parts.empty() ? database->database : database->parts[part];
    hand_out(source.get_metadata(std::string(key, key_length)), out, out_length);
    CXAPIAN_GUARD_END(error)
}

bool cxapian_database_spelling_suggestion(cxapian_database *database, const char *word, size_t length,
                                          uint32_t max_edit_distance, char **out, size_t *out_length,
                                          cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    hand_out(database->database.get_spelling_suggestion(std::string(word, length), max_edit_distance), out,
             out_length);
    CXAPIAN_GUARD_END(error)
}

bool cxapian_database_visit_terms(cxapian_database *database, const char *prefix, size_t prefix_length,
                                  const char *after, size_t after_length, uint32_t slot,
                                  cxapian_term_visitor visitor, void *context, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    const std::string start(prefix, prefix_length);
    Xapian::Database &db = database->database;
    auto term = db.allterms_begin(start);
    if (after != nullptr) {
        // Resume after a term already visited (a walk that met a newer revision goes on where it stopped).
        const std::string last(after, after_length);
        term.skip_to(last);
        if (term != db.allterms_end(start) && *term == last) ++term;
    }
    for (; term != db.allterms_end(start); ++term) {
        const std::string name = *term;
        std::string value;
        auto posting = db.postlist_begin(name);
        if (posting != db.postlist_end(name)) value = db.get_document(*posting).get_value(slot);
        if (!visitor(context, name.data(), name.size(), value.data(), value.size())) break;
    }
    CXAPIAN_GUARD_END(error)
}

/* ---- writable databases ---- */

bool cxapian_writable_database_open(const char *path, int flags, cxapian_writable_database **out,
                                    cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    *out = nullptr;
    int action = 0;
    switch (flags & 0xff) {
        case CXAPIAN_DB_CREATE_OR_OPEN: action = Xapian::DB_CREATE_OR_OPEN; break;
        case CXAPIAN_DB_CREATE_OR_OVERWRITE: action = Xapian::DB_CREATE_OR_OVERWRITE; break;
        case CXAPIAN_DB_OPEN: action = Xapian::DB_OPEN; break;
        default: throw Xapian::InvalidArgumentError("unknown open action");
    }
    if (flags & CXAPIAN_DB_NO_SYNC) action |= Xapian::DB_NO_SYNC;
    *out = new cxapian_writable_database{
        Xapian::WritableDatabase(path, action | Xapian::DB_BACKEND_GLASS, cxapian::block_size)};
    CXAPIAN_GUARD_END(error)
}

void cxapian_writable_database_free(cxapian_writable_database *database) {
    try {
        delete database;  // Xapian's destructor releases the lock and drops uncommitted changes.
    } catch (...) {
    }
}

bool cxapian_writable_database_close(cxapian_writable_database *database, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    database->database.close();
    CXAPIAN_GUARD_END(error)
}

bool cxapian_writable_database_replace_document(cxapian_writable_database *database, const char *unique_term,
                                                size_t length, cxapian_document *document,
                                                cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    database->database.replace_document(std::string(unique_term, length), document->document);
    CXAPIAN_GUARD_END(error)
}

bool cxapian_writable_database_add_document(cxapian_writable_database *database, cxapian_document *document,
                                            cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    database->database.add_document(document->document);
    CXAPIAN_GUARD_END(error)
}

namespace {

/// Whether a term (after its prefix) is a word for the spelling table: two bytes or more of lowercase or non-ASCII
/// letters and apostrophes, starting with a letter (an uppercase first byte is another prefix). Terms with digits,
/// underscores or dots are versions, hashes and identifiers (`gtk3`, `0x1f`, `xfs_bmap`): one is not a misspelling
/// of another, and a correction between them (`python2` for `python3`) misleads. They were half the Debian
/// corpus's words.
bool is_spelling_word(const std::string &term, size_t prefix_length) {
    if (term.size() < prefix_length + 2) return false;
    const unsigned char first = static_cast<unsigned char>(term[prefix_length]);
    if (!((first >= 'a' && first <= 'z') || first >= 0x80)) return false;
    for (size_t i = prefix_length + 1; i < term.size(); ++i) {
        const unsigned char byte = static_cast<unsigned char>(term[i]);
        if (!((byte >= 'a' && byte <= 'z') || byte >= 0x80 || byte == '\'')) return false;
    }
    return true;
}

}  // namespace

bool cxapian_writable_database_add_spellings(cxapian_writable_database *database, const char *words, size_t length,
                                             const char *title_prefix, uint32_t minimum_frequency,
                                             cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    Xapian::WritableDatabase &db = database->database;
    const std::string prefix(title_prefix != nullptr ? title_prefix : "");
    std::vector<std::string> sorted;
    std::istringstream lines(std::string(words, length));
    for (std::string word; std::getline(lines, word);) {
        if (is_spelling_word(word, 0)) sorted.push_back(std::move(word));
    }
    std::sort(sorted.begin(), sorted.end());
    // One walk of the spelling table in word order tells which words it has (Xapian 1.4 has no lookup of one).
    Xapian::TermIterator known = db.spellings_begin();
    const Xapian::TermIterator end = db.spellings_end();
    for (const std::string &word : sorted) {
        if (known != end && *known < word) known.skip_to(word);
        if (known != end && *known == word) continue;
        const Xapian::doccount in_text = db.get_termfreq(word);
        const Xapian::doccount in_titles = db.get_termfreq(prefix + word);
        if (in_titles > 0 || in_text >= minimum_frequency) db.add_spelling(word, in_text + in_titles);
    }
    CXAPIAN_GUARD_END(error)
}

bool cxapian_add_spellings_from_shards(const char *const *paths, size_t count, const char *title_prefix,
                                       uint32_t minimum_frequency, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    if (count == 0) return true;
    Xapian::Database all;
    for (size_t i = 0; i < count; ++i) all.add_database(Xapian::Database(paths[i]));
    const std::string prefix(title_prefix != nullptr ? title_prefix : "");
    Xapian::WritableDatabase first(paths[0], Xapian::DB_OPEN | Xapian::DB_NO_SYNC);
    // Title words first: every one of them is kept, with its frequency over titles and text.
    for (Xapian::TermIterator term = all.allterms_begin(prefix); term != all.allterms_end(prefix); ++term) {
        const std::string &name = *term;
        if (!is_spelling_word(name, prefix.size())) continue;
        const std::string word = name.substr(prefix.size());
        first.add_spelling(word, term.get_termfreq() + all.get_termfreq(word));
    }
    for (Xapian::TermIterator term = all.allterms_begin(); term != all.allterms_end(); ++term) {
        const std::string &name = *term;
        if (!is_spelling_word(name, 0) || term.get_termfreq() < minimum_frequency) continue;
        if (!prefix.empty() && all.term_exists(prefix + name)) continue;  // added with the titles
        first.add_spelling(name, term.get_termfreq());
    }
    first.commit();
    CXAPIAN_GUARD_END(error)
}

bool cxapian_writable_database_delete_documents(cxapian_writable_database *database, const char *term,
                                                size_t length, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    database->database.delete_document(std::string(term, length));
    CXAPIAN_GUARD_END(error)
}

bool cxapian_writable_database_set_metadata(cxapian_writable_database *database, const char *key,
                                            size_t key_length, const char *value, size_t value_length,
                                            cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    database->database.set_metadata(std::string(key, key_length), std::string(value, value_length));
    CXAPIAN_GUARD_END(error)
}

bool cxapian_writable_database_get_metadata(cxapian_writable_database *database, const char *key,
                                            size_t key_length, char **out, size_t *out_length,
                                            cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    hand_out(database->database.get_metadata(std::string(key, key_length)), out, out_length);
    CXAPIAN_GUARD_END(error)
}

bool cxapian_writable_database_doccount(cxapian_writable_database *database, uint32_t *out,
                                        cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    *out = database->database.get_doccount();
    CXAPIAN_GUARD_END(error)
}

bool cxapian_writable_database_commit(cxapian_writable_database *database, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    database->database.commit();
    CXAPIAN_GUARD_END(error)
}

bool cxapian_writable_database_begin_transaction(cxapian_writable_database *database, bool flushed,
                                                 cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    database->database.begin_transaction(flushed);
    CXAPIAN_GUARD_END(error)
}

bool cxapian_writable_database_commit_transaction(cxapian_writable_database *database, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    database->database.commit_transaction();
    CXAPIAN_GUARD_END(error)
}

bool cxapian_writable_database_cancel_transaction(cxapian_writable_database *database, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    database->database.cancel_transaction();
    CXAPIAN_GUARD_END(error)
}

bool cxapian_compact(const char *const *sources, size_t source_count, const char *destination,
                     cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    if (source_count == 0) throw Xapian::InvalidArgumentError("nothing to compact");
    Xapian::Database database;
    for (size_t i = 0; i < source_count; ++i) database.add_database(Xapian::Database(sources[i]));
    database.compact(destination, Xapian::DB_BACKEND_GLASS, cxapian::block_size);
    CXAPIAN_GUARD_END(error)
}

bool cxapian_database_check(const char *path, size_t *problems, char **text, size_t *text_length,
                            cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    *problems = 0;
    *text = nullptr;
    *text_length = 0;
    std::ostringstream out;
    *problems = Xapian::Database::check(path, 0, &out);
    // The report lists every table; only its error lines matter to the caller when problems were found.
    hand_out(*problems > 0 ? out.str() : std::string(), text, text_length);
    CXAPIAN_GUARD_END(error)
}

/* ---- queries ---- */

cxapian_query *cxapian_query_new_term(const char *term, size_t length) {
    try {
        return new cxapian_query{Xapian::Query(std::string(term, length))};
    } catch (...) {
        return nullptr;
    }
}

cxapian_query *cxapian_query_new_any_term(const char *terms, size_t length) {
    try {
        std::vector<Xapian::Query> leaves;
        size_t start = 0;
        for (size_t i = 0; i < length; ++i) {
            if (terms[i] != '\0') continue;
            if (i > start) leaves.emplace_back(std::string(terms + start, i - start));
            start = i + 1;
        }
        return new cxapian_query{Xapian::Query(Xapian::Query::OP_OR, leaves.begin(), leaves.end())};
    } catch (...) {
        return nullptr;
    }
}

cxapian_query *cxapian_query_new_match_all(void) {
    return new (std::nothrow) cxapian_query{Xapian::Query::MatchAll};
}

cxapian_query *cxapian_query_new_match_nothing(void) {
    return new (std::nothrow) cxapian_query{Xapian::Query::MatchNothing};
}

bool cxapian_query_combine(cxapian_query_op op, const cxapian_query *left, const cxapian_query *right,
                           cxapian_query **out, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    *out = nullptr;
    Xapian::Query::op xop;
    switch (op) {
        case CXAPIAN_OP_AND: xop = Xapian::Query::OP_AND; break;
        case CXAPIAN_OP_OR: xop = Xapian::Query::OP_OR; break;
        case CXAPIAN_OP_AND_NOT: xop = Xapian::Query::OP_AND_NOT; break;
        case CXAPIAN_OP_FILTER: xop = Xapian::Query::OP_FILTER; break;
        case CXAPIAN_OP_AND_MAYBE: xop = Xapian::Query::OP_AND_MAYBE; break;
        default: throw Xapian::InvalidArgumentError("unknown query operator");
    }
    auto query = std::make_unique<cxapian_query>();
    query->query = Xapian::Query(xop, left->query, right->query);
    query->ranges = left->ranges;
    query->ranges.insert(query->ranges.end(), right->ranges.begin(), right->ranges.end());
    *out = query.release();
    CXAPIAN_GUARD_END(error)
}

void cxapian_query_free(cxapian_query *query) { delete query; }

bool cxapian_query_is_empty(const cxapian_query *query) { return query->query.empty(); }

char *cxapian_query_description(const cxapian_query *query) {
    try {
        return copy_string(query->query.get_description());
    } catch (...) {
        return nullptr;
    }
}

bool cxapian_query_group_compounds(const cxapian_query *query, const char *compounds, size_t length,
                                   const char *stemming_language, const char *title_prefix, cxapian_query **out,
                                   cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    *out = nullptr;
    std::vector<std::vector<std::string>> groups;
    std::istringstream lines(std::string(compounds, length));
    for (std::string line; std::getline(lines, line);) {
        std::istringstream words(line);
        std::vector<std::string> group;
        for (std::string word; words >> word;) group.push_back(word);
        if (group.size() > 1) groups.push_back(std::move(group));
    }
    Xapian::Stem stemmer(stemming_language != nullptr ? stemming_language : "none");
    *out = new cxapian_query{
        cxapian::group_compounds(query->query, groups, stemmer, title_prefix != nullptr ? title_prefix : ""),
        query->ranges};
    CXAPIAN_GUARD_END(error)
}

/* ---- query parser ---- */

cxapian_query_parser *cxapian_query_parser_new(void) { return new (std::nothrow) cxapian_query_parser(); }

void cxapian_query_parser_free(cxapian_query_parser *parser) { delete parser; }

bool cxapian_query_parser_set_stemmer(cxapian_query_parser *parser, const char *language,
                                      cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    parser->parser.set_stemmer(make_stemmer(language));
    CXAPIAN_GUARD_END(error)
}

void cxapian_query_parser_set_stemming_strategy(cxapian_query_parser *parser, cxapian_stem_strategy strategy) {
    try {
        parser->parser.set_stemming_strategy(static_cast<Xapian::QueryParser::stem_strategy>(strategy));
    } catch (...) {
    }
}

void cxapian_query_parser_set_default_and(cxapian_query_parser *parser, bool and_by_default) {
    try {
        parser->parser.set_default_op(and_by_default ? Xapian::Query::OP_AND : Xapian::Query::OP_OR);
    } catch (...) {
    }
}

void cxapian_query_parser_set_database(cxapian_query_parser *parser, cxapian_database *database) {
    try {
        parser->parser.set_database(database->database);
    } catch (...) {
    }
}

bool cxapian_query_parser_add_prefix(cxapian_query_parser *parser, const char *field, const char *prefix,
                                     cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    parser->parser.add_prefix(field, prefix);
    CXAPIAN_GUARD_END(error)
}

bool cxapian_query_parser_add_boolean_prefix(cxapian_query_parser *parser, const char *field, const char *prefix,
                                             bool exclusive, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    parser->parser.add_boolean_prefix(field, prefix, exclusive);
    CXAPIAN_GUARD_END(error)
}

bool cxapian_query_parser_add_boolean_mapper(cxapian_query_parser *parser, const char *field,
                                             cxapian_field_mapper mapper, void *context,
                                             cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    // release() hands ownership to the parser's reference count.
    auto *processor = new MappedFieldProcessor(mapper, context, parser);
    parser->parser.add_boolean_prefix(field, processor->release());
    CXAPIAN_GUARD_END(error)
}

bool cxapian_query_parser_parse(cxapian_query_parser *parser, const char *text, size_t length, unsigned flags,
                                cxapian_query **out, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    *out = nullptr;
    unsigned xflags = 0;
    if (flags & CXAPIAN_QP_BOOLEAN) xflags |= Xapian::QueryParser::FLAG_BOOLEAN;
    if (flags & CXAPIAN_QP_PHRASE) xflags |= Xapian::QueryParser::FLAG_PHRASE;
    if (flags & CXAPIAN_QP_LOVEHATE) xflags |= Xapian::QueryParser::FLAG_LOVEHATE;
    if (flags & CXAPIAN_QP_BOOLEAN_ANY_CASE) xflags |= Xapian::QueryParser::FLAG_BOOLEAN_ANY_CASE;
    if (flags & CXAPIAN_QP_WILDCARD) xflags |= Xapian::QueryParser::FLAG_WILDCARD;
    if (flags & CXAPIAN_QP_PURE_NOT) xflags |= Xapian::QueryParser::FLAG_PURE_NOT;
    if (flags & CXAPIAN_QP_PARTIAL) xflags |= Xapian::QueryParser::FLAG_PARTIAL;
    if (flags & CXAPIAN_QP_SPELLING_CORRECTION) xflags |= Xapian::QueryParser::FLAG_SPELLING_CORRECTION;
    if (flags & CXAPIAN_QP_CJK_NGRAM) xflags |= Xapian::QueryParser::FLAG_CJK_NGRAM;
    parser->rejected = false;
    parser->rejection.clear();
    parser->ranges.clear();
    Xapian::Query query = parser->parser.parse_query(std::string(text, length), xflags);
    if (parser->rejected) {
        parser->rejected = false;
        throw Xapian::QueryParserError(parser->rejection);
    }
    *out = new cxapian_query{query, std::move(parser->ranges)};
    parser->ranges.clear();
    CXAPIAN_GUARD_END(error)
}

void cxapian_query_parser_set_max_expansion(cxapian_query_parser *parser, uint32_t limit, uint32_t partial_limit) {
    try {
        parser->parser.set_max_expansion(limit, Xapian::Query::WILDCARD_LIMIT_ERROR,
                                         Xapian::QueryParser::FLAG_WILDCARD);
        parser->parser.set_max_expansion(partial_limit, Xapian::Query::WILDCARD_LIMIT_MOST_FREQUENT,
                                         Xapian::QueryParser::FLAG_PARTIAL);
    } catch (...) {
    }
}

char *cxapian_query_parser_corrected_query(cxapian_query_parser *parser) {
    try {
        return copy_string(parser->parser.get_corrected_query_string());
    } catch (...) {
        return nullptr;
    }
}

bool cxapian_query_new_value_range(uint32_t slot, const char *begin, size_t begin_length, const char *end,
                                   size_t end_length, cxapian_query **out, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    *out = nullptr;
    auto query = std::make_unique<cxapian_query>();
    query->query = MappedFieldProcessor::value_range(slot, begin, begin_length, end, end_length, &query->ranges);
    *out = query.release();
    CXAPIAN_GUARD_END(error)
}

bool cxapian_query_new_similar(cxapian_database *database, const char *unique_term, size_t unique_term_length,
                               uint32_t max_words, const cxapian_fielded_ranking *ranking,
                               const cxapian_index_layout *layout, double feedback_weight, cxapian_query **out,
                               cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    *out = nullptr;
    const cxapian::FieldedRanking fielded = fielded_ranking_of(*ranking, index_layout(*database, layout));
    *out = new cxapian_query{cxapian::similar_query(database->database, std::string(unique_term, unique_term_length),
                                                    max_words, fielded, feedback_weight)};
    CXAPIAN_GUARD_END(error)
}

/* ---- matching ---- */

namespace {

/// Sets the order `options` asks for on `enquire` (relevance, value keys, docids); `keys` must outlive the match.
/// `table`, if given, gives the one key's values (a TableKeyMaker of its slot), read instead of the slot.
void set_order(Xapian::Enquire &enquire, const cxapian_enquire_options *options, Xapian::MultiValueKeyMaker &keys,
               Xapian::KeyMaker *table = nullptr) {
    // Docids are the last tie-break: free, as Xapian compares them anyway, where a value key costs a value read
    // for every candidate that ties with the page's last hit (most of them when BM25 gives equal scores).
    enquire.set_docid_order(options->docids_descending ? Xapian::Enquire::DESCENDING : Xapian::Enquire::ASCENDING);
    if (options->sort_key_count == 1 && table != nullptr) {
        // The same comparison of the same bytes as a sort by the slot: Xapian compares keys and values alike.
        const bool descending = options->sort_keys[0].descending;
        if (options->by_relevance_first) {
            enquire.set_sort_by_relevance_then_key(table, descending);
        } else {
            enquire.set_sort_by_key_then_relevance(table, descending);
        }
    } else if (options->sort_key_count == 1) {
        // One key: Xapian reads the slot itself, without a key maker building a key string per candidate.
        const auto &key = options->sort_keys[0];
        if (options->by_relevance_first) {
            enquire.set_sort_by_relevance_then_value(key.slot, key.descending);
        } else {
            enquire.set_sort_by_value_then_relevance(key.slot, key.descending);
        }
    } else if (options->sort_key_count > 1) {
        for (size_t i = 0; i < options->sort_key_count; ++i) {
            keys.add_value(options->sort_keys[i].slot, options->sort_keys[i].descending);
        }
        if (options->by_relevance_first) {
            enquire.set_sort_by_relevance_then_key(&keys, false);
        } else {
            enquire.set_sort_by_key_then_relevance(&keys, false);
        }
    }
}

/// Takes `result.mset`'s match counts as the search's; false if a match stopped at the deadline, when the matches
/// examined are a lower bound, not the total.
bool take_counts(const Xapian::Database &database, cxapian_mset &result) {
    result.estimated = result.mset.get_matches_estimated();
    result.lower_bound = result.mset.get_matches_lower_bound();
    result.upper_bound = result.mset.get_matches_upper_bound();
    if (!result.stopped->load()) return true;
    result.upper_bound = std::max(result.upper_bound, database.get_doccount());
    return false;
}

/// Runs `query` for the page `options` asks, with its facets, into `result` (sorted by `table`'s keys if given, see
/// set_order()).
void match_page(const Xapian::Database &database, const Xapian::Query &query, const Xapian::Weight &weight,
                const cxapian_enquire_options *options, cxapian_mset &result, Xapian::KeyMaker *table = nullptr) {
    Xapian::Enquire enquire(database);
    enquire.set_query(until_deadline(query, result));
    enquire.set_weighting_scheme(weight);
    Xapian::MultiValueKeyMaker keys;  // the enquire points at it until get_mset
    set_order(enquire, options, keys, table);
    if (options->collapse) enquire.set_collapse_key(options->collapse_slot, 1);
    // A multi-database's facets are counted in each of its parts beforehand (cxapian_enquire).
    if (result.shards == 1) {
        for (auto &facet : result.facets) enquire.add_matchspy(facet.spy.get());
    }
    result.mset = enquire.get_mset(options->first, options->max_items, options->check_at_least);
    enquire.clear_matchspies();
    result.page_first = 0;
    result.page_size = result.mset.size();
    if (!take_counts(database, result)) return;  // stopped: not counted again below
    // Collapsing, Xapian counts distinct keys only among the matches it returns: past the page the counts stay
    // estimates, however many it examined. Up to check_at_least matches (10,000 at most: facets examine every
    // match, but a list of all is not worth an exact total), they are counted in a second pass that weighs
    // nothing (Xapian's BoolWeight: a walk of the posting lists), so the total is exact there as it is without
    // collapsing.
    const Xapian::doccount exact_up_to = std::min<Xapian::doccount>(options->check_at_least, 10000);
    if (options->collapse && result.lower_bound != result.upper_bound && result.lower_bound <= exact_up_to) {
        Xapian::Enquire counter(database);
        counter.set_query(until_deadline(query, result));
        counter.set_weighting_scheme(Xapian::BoolWeight());
        counter.set_docid_order(Xapian::Enquire::DONT_CARE);
        counter.set_collapse_key(options->collapse_slot, 1);
        const Xapian::doccount count = counter.get_mset(0, exact_up_to + 1).size();
        if (count <= exact_up_to) result.estimated = result.lower_bound = result.upper_bound = count;
    }
}

/// Rescoring: the best `window` matches of the base query (with its counts and facets), then those documents
/// alone under the whole query (bonus and title similarity included), for the page.
///
/// An exact-phrase bonus (FieldedQuery::bonus_phrases) is weighed for the window directly
/// (cxapian::weigh_phrase_bonus: Xapian's phrase filtered to the window, weighed as the whole query weighs it), and
/// ranked by relevance alone the window is ranked here, from the first match's weights and the title similarity
/// (cxapian::weigh_title_match). The second match this replaces opened every posting list again to weigh 50
/// documents: a third of a two-word search's time at 100k items (`profile search 100000 1000 two-word`).
void match_rescored(const Xapian::Database &database, const cxapian::FieldedQuery &fielded,
                    const cxapian::FieldedRanking &ranking, const Xapian::Weight &weight,
                    const cxapian_enquire_options *options, Xapian::doccount window, cxapian_mset &result) {
    cxapian_enquire_options first = *options;
    first.first = 0;
    first.max_items = window;
    first.check_at_least = std::max(options->check_at_least, window);
    match_page(database, fielded.base, weight, &first, result);
    // The window in docid order, each with its first match's weight.
    std::vector<std::pair<Xapian::docid, double>> base;
    base.reserve(result.mset.size());
    for (auto hit = result.mset.begin(); hit != result.mset.end(); ++hit) base.emplace_back(*hit, hit.get_weight());
    std::sort(base.begin(), base.end());
    std::vector<Xapian::docid> candidates;
    candidates.reserve(base.size());
    for (const auto &hit : base) candidates.push_back(hit.first);
    std::vector<Xapian::docid> phrased;
    std::vector<double> phrase_weights;
    const bool phrase_weighed = !fielded.bonus_phrases.empty();
    if (phrase_weighed) {
        cxapian::weigh_phrase_bonus(database, fielded.bonus_phrases, candidates, ranking, phrased, phrase_weights);
    }
    if (phrase_weighed && options->sort_key_count == 0) {
        // Ranked here: the first match's weights plus the bonus and the title similarity, in the matcher's order
        // (weight, then docid), summed as the whole query's AND_MAYBEs sum them.
        const std::vector<double> title =
            cxapian::weigh_title_match(database, fielded.title_terms, fielded.title_idfs, ranking, candidates);
        result.ranked.clear();
        size_t p = 0;
        for (size_t d = 0; d < base.size(); ++d) {
            double score = base[d].second;
            if (p < phrased.size() && phrased[p] == candidates[d]) score += phrase_weights[p++];
            result.ranked.emplace_back(candidates[d], score + title[d]);
        }
        // A total order (docids are unique), so the plain sort gives the matcher's order.
        const bool descending = options->docids_descending;
        std::sort(result.ranked.begin(), result.ranked.end(), [descending](const auto &a, const auto &b) {
            if (a.second != b.second) return a.second > b.second;
            return descending ? a.first > b.first : a.first < b.first;
        });
        const auto size = static_cast<Xapian::doccount>(result.ranked.size());
        result.page_first = std::min(options->first, size);
        result.page_size = std::min<Xapian::doccount>(options->max_items, size - result.page_first);
        return;
    }
    cxapian::FieldedQuery extras = fielded;
    if (phrase_weighed) {
        extras.bonus = phrased.empty() ? Xapian::Query()
                                       : Xapian::Query((new cxapian::DocidListSource(std::move(phrased),
                                                                                     std::move(phrase_weights)))
                                                           ->release());
    }
    auto *list = new cxapian::DocidListSource(std::move(candidates));
    Xapian::Query rescored(Xapian::Query::OP_FILTER, extras.whole(), Xapian::Query(list->release()));
    Xapian::Enquire enquire(database);
    enquire.set_query(rescored);
    enquire.set_weighting_scheme(weight);
    Xapian::MultiValueKeyMaker keys;
    set_order(enquire, options, keys);
    // The whole window at once, then the page cut from it: the matcher prunes with the weight a page must reach,
    // and with Xapian's optional parts (the bonus) pruned that weight changes scores, so pages asked for one by
    // one would not join up.
    result.mset = enquire.get_mset(0, window);
    result.page_first = std::min(options->first, result.mset.size());
    result.page_size = std::min<Xapian::doccount>(options->max_items, result.mset.size() - result.page_first);
}

/// The page of a sort by one value slot, from the slot's table (cxapian::SlotValues::by_value()): the documents in
/// the sort's order, a batch at a time, each batch filtered by the query, until the page is full; the counts from a
/// match that weighs nothing and stops where a relevance search's would (check_at_least). A sort in the match reads
/// the key of every match and compares it (most of a common word's search sorted by `modified`); a query that
/// matches a fifth of the documents fills a page of 20 from about the first 100 of the order.
///
/// False, nothing done but the counts, where the walk would check more documents than the query matches (needed ×
/// documents / matches against matches): a sort in the match costs less there; and when the table has no order yet
/// (SlotValues::by_value_if_asked_again()).
bool page_by_table(const Xapian::Database &database, const Xapian::Query &query, const cxapian_enquire_options *options,
                   const cxapian::SlotValues &table, cxapian_mset &result, std::vector<Xapian::docid> &page) {
    Xapian::Enquire counter(database);
    counter.set_query(until_deadline(query, result));
    counter.set_weighting_scheme(Xapian::BoolWeight());
    counter.set_docid_order(Xapian::Enquire::DONT_CARE);
    const Xapian::MSet counted = counter.get_mset(0, 0, options->check_at_least);
    const uint64_t matches = counted.get_matches_estimated();
    const uint64_t documents = table.docid_limit();
    const uint64_t needed = uint64_t(options->first) + options->max_items;
    if (double(matches) * double(matches) < 4.0 * double(needed) * double(documents)) return false;
    const std::vector<Xapian::docid> *ordered = table.by_value_if_asked_again();
    if (ordered == nullptr) return false;
    result.mset = counted;
    take_counts(database, result);

    // The order walked: runs of equal values in the sort's direction, each run's docids in the tie order (Xapian's
    // sort by value, ties by docid).
    const std::vector<Xapian::docid> &order = *ordered;
    const bool descending = options->sort_keys[0].descending;
    const bool docids_descending = options->docids_descending;
    size_t low = 0, high = order.size();  // not walked yet: order[low, high)
    size_t run_begin = 0, run_end = 0, in_run = 0;
    auto next = [&](Xapian::docid &did) {
        if (in_run == run_end - run_begin) {
            if (low == high) return false;
            in_run = 0;
            if (descending) {
                const std::string_view value = table.value(order[high - 1]);
                run_end = high;
                while (high > low && table.value(order[high - 1]) == value) --high;
                run_begin = high;
            } else {
                const std::string_view value = table.value(order[low]);
                run_begin = low;
                while (low < high && table.value(order[low]) == value) ++low;
                run_end = low;
            }
        }
        did = docids_descending ? order[run_end - 1 - in_run] : order[run_begin + in_run];
        ++in_run;
        return true;
    };
    uint64_t position = 0;  // matches met in the order
    // About twice the documents a page needs at the matches' share of the documents, four times more each round.
    const double expected = 2.0 * double(needed) * double(documents) / double(std::max<uint64_t>(matches, 1));
    size_t batch_size = size_t(std::min(std::max(expected, 64.0), double(order.size())));
    std::vector<Xapian::docid> batch;
    while (position < needed && !result.stopped->load()) {
        batch.clear();
        for (Xapian::docid did; batch.size() < batch_size && next(did);) batch.push_back(did);
        if (batch.empty()) break;
        std::vector<Xapian::docid> sorted = batch;
        std::sort(sorted.begin(), sorted.end());
        auto *list = new cxapian::DocidListSource(std::move(sorted));
        Xapian::Enquire filter(database);
        filter.set_query(until_deadline(Xapian::Query(Xapian::Query::OP_FILTER, query, Xapian::Query(list->release())),
                                        result));
        filter.set_weighting_scheme(Xapian::BoolWeight());
        filter.set_docid_order(Xapian::Enquire::ASCENDING);
        const Xapian::MSet found = filter.get_mset(0, static_cast<Xapian::doccount>(batch.size()));
        std::vector<Xapian::docid> matched;
        matched.reserve(found.size());
        for (auto hit = found.begin(); hit != found.end(); ++hit) matched.push_back(*hit);
        for (const Xapian::docid did : batch) {
            if (!std::binary_search(matched.begin(), matched.end(), did)) continue;
            if (position >= options->first) page.push_back(did);
            if (++position == needed) break;
        }
        batch_size = std::min(batch_size * 4, order.size());
    }
    return true;
}

/// Sorted by values, not relevance: the page by a match that weighs nothing (or from the sort's table, see
/// page_by_table()), then its hits alone under the whole query, for their scores.
///
/// A sort by value puts weights to no use in the order: what the values leave tied goes by docid (Xapian's
/// VAL_REL, with every weight 0), as docs/query-language.md promises. Xapian 1.4 still asks for the weight of every match, and
/// the fielded ranking's posting sources work for it: at 100k items, a common word sorted by `modified` spent
/// about half its time weighing its 20,000 matches (perf of `profile search 100000 400 sorted`). The parsed query
/// matches what its fielded rewrite matches (the rewrite changes weights, and its bonus and title similarity are
/// optional parts), so the first match is that query under BoolWeight; the second weighs the page's documents as
/// the whole query weighs them, so scores stay what a weighted match gives.
///
/// `table`, if given, gives the one sort key's values (see cxapian::SlotValues).
void match_by_value(const Xapian::Database &database, const Xapian::Query &parsed, const cxapian::FieldedQuery &fielded,
                    const Xapian::Weight &weight, const cxapian_enquire_options *options, cxapian_mset &result,
                    std::shared_ptr<const cxapian::SlotValues> table) {
    std::vector<Xapian::docid> page;
    // Facets count every match, which the walk of the order does not see.
    const bool from_table = table && options->sort_key_count == 1 && !options->by_relevance_first
                            && result.facets.empty() && page_by_table(database, parsed, options, *table, result, page);
    if (!from_table) {
        std::unique_ptr<cxapian::TableKeyMaker> keys;
        if (table) keys = std::make_unique<cxapian::TableKeyMaker>(std::move(table));
        match_page(database, parsed, Xapian::BoolWeight(), options, result, keys.get());
        page.reserve(result.page_size);
        for (Xapian::doccount i = 0; i < result.page_size; ++i) page.push_back(*result.mset[result.page_first + i]);
    }
    std::vector<Xapian::docid> sorted = page;
    std::sort(sorted.begin(), sorted.end());
    std::map<Xapian::docid, double> scores;
    if (!sorted.empty()) {
        auto *list = new cxapian::DocidListSource(std::move(sorted));
        Xapian::Enquire enquire(database);
        // The page's documents, each weighed by the whole query where it matches (all of them do): an AND_MAYBE moves
        // the query to each document (skip_to), as a match in relevance order does. Filtered to them instead
        // (OP_FILTER), Xapian 1.4 checks an OR's branches at each document without their phrases' positions, and gave
        // a document holding "cat dog" in its title and "bee … ant" in its detail the weight of `"ant bee"` too.
        enquire.set_query(Xapian::Query(Xapian::Query::OP_AND_MAYBE, Xapian::Query(list->release()), fielded.whole()));
        enquire.set_weighting_scheme(weight);
        // Room for one more than can match: the MSet is never full, so the matcher has no weight to beat and prunes
        // nothing (pruning is what turns an OR into an AND_MAYBE).
        const Xapian::MSet weighed = enquire.get_mset(0, static_cast<Xapian::doccount>(page.size()) + 1);
        for (auto hit = weighed.begin(); hit != weighed.end(); ++hit) scores[*hit] = hit.get_weight();
    }
    result.ranked.clear();
    for (const Xapian::docid did : page) {
        const auto score = scores.find(did);
        result.ranked.emplace_back(did, score == scores.end() ? 0.0 : score->second);
    }
    result.page_first = 0;
    result.page_size = static_cast<Xapian::doccount>(result.ranked.size());
}

}  // namespace

bool cxapian_enquire(cxapian_database *database, const cxapian_query *query, const cxapian_enquire_options *options,
                     cxapian_mset **out, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    *out = nullptr;
    auto result = std::make_unique<cxapian_mset>();
    if (options->time_limit > 0) {
        // At most an hour (the server's bound): no overflow of the clock, whatever the caller asks.
        const std::chrono::duration<double> limit(std::min(options->time_limit, 3600.0));
        result->deadline =
            std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(limit);
    }
    result->shards = std::max<Xapian::doccount>(database->database.size(), 1);
    result->database = database->database;
    const cxapian::IndexLayout layout = index_layout(*database, options->layout);
    // A long-lived reader's tables of value slots, asked for once per slot in a search (a table is made on a
    // revision's second search that asks for it, not on a search that asks twice).
    std::map<Xapian::valueno, std::shared_ptr<const cxapian::SlotValues>> slot_tables;
    auto slot_table = [&](Xapian::valueno slot) {
        const auto known = slot_tables.find(slot);
        if (known != slot_tables.end()) return known->second;
        return slot_tables[slot] = database->slot_values.get(database->database, database->path, slot);
    };
    // Its value ranges read from them (cxapian::SlotRangeSource).
    Xapian::Query given = query->query;
    if (options->kept_tables && database->database.size() == 1 && !query->ranges.empty()) {
        given = cxapian::with_value_tables(given, query->ranges, slot_table);
    }
    // The query as the index holds it: a project title's documents by their project's domain.
    const Xapian::Query asked = layout.resolve_projects(database->database, given);
    // The query as a match of documents: a stem's documents read as its class's.
    const Xapian::Query matching = layout.stems->expand(asked);
    const uint32_t facet_shards = database->parts.empty() ? 1 : uint32_t(database->parts.size());
    result->facets.reserve(options->facet_slot_count * facet_shards);
    for (uint32_t shard = 0; shard < facet_shards; ++shard) {
        for (size_t i = 0; i < options->facet_slot_count; ++i) {
            result->facets.push_back({options->facet_slots[i], shard,
                                      std::make_unique<Xapian::ValueCountMatchSpy>(options->facet_slots[i])});
        }
    }
    if (!database->parts.empty() && options->facet_slot_count > 0) {
        // Each database's matches, weighed by nothing: which values they hold, not how well they match.
        for (uint32_t shard = 0; shard < facet_shards; ++shard) {
            const Xapian::Database &part = database->parts[shard];
            Xapian::Enquire counter(part);
            counter.set_query(until_deadline(matching, *result));
            counter.set_weighting_scheme(Xapian::BoolWeight());
            counter.set_docid_order(Xapian::Enquire::DONT_CARE);
            for (auto &facet : result->facets) {
                if (facet.shard == shard) counter.add_matchspy(facet.spy.get());
            }
            counter.get_mset(0, 0, part.get_doccount());
        }
    }
    const Xapian::Query bonus = options->bonus != nullptr ? options->bonus->query : Xapian::Query();
    if (options->ranking == nullptr) {
        Xapian::Query whole = bonus.empty() ? matching
                                            : Xapian::Query(Xapian::Query::OP_AND_MAYBE, matching,
                                                            layout.stems->expand(bonus));
        if (options->unweighted) {
            match_page(database->database, whole, Xapian::BoolWeight(), options, *result);
        } else {
            match_page(database->database, whole, Xapian::BM25Weight(), options, *result);
        }
        *out = result.release();
        return true;
    }
    const cxapian_fielded_ranking &ranking = *options->ranking;
    cxapian::FieldedRanking fielded_ranking = fielded_ranking_of(ranking, layout);
    result->frequencies = std::make_shared<cxapian::TermFrequencies>(database->database);
    fielded_ranking.frequencies = result->frequencies;
    if (options->kept_tables && database->database.size() == 1) {
        if (ranking.title_match > 0) {
            const Xapian::valueno slot = ranking.title_words_slot;
            fielded_ranking.title_words = database->title_words.get(
                database->database, "title words " + std::to_string(slot), database->path,
                [slot](const auto &db) { return std::make_shared<const cxapian::TitleWords>(db, slot); });
        }
        fielded_ranking.doc_lengths =
            database->doc_lengths.get(database->database, "lengths", database->path,
                                      [](const auto &db) { return std::make_shared<const cxapian::DocLengths>(db); });
    }
    // A multi-database's parts each have common words of their own: a pair term means nothing across them.
    const Xapian::Query parsed = database->database.size() == 1 ? layout.pairs->filter_phrases(asked) : asked;
    const cxapian::FieldedQuery fielded =
        cxapian::rewrite_for_fields(parsed, bonus, database->database, fielded_ranking);
    result->highlight_query = query->query;
    const cxapian::FieldedBM25Weight weight(ranking.k1, ranking.b);
    const bool by_relevance = options->sort_key_count == 0 || options->by_relevance_first;
    // Only a bonus is worth deferring: it checks positions for every match holding all the words. The title
    // similarity alone costs less inline than weighing the window a second time.
    const bool extras = !fielded.bonus.empty();
    // A page far past the window is rare (and rescoring it would weigh every match anyway): the whole query then.
    const uint64_t page_end = uint64_t(options->first) + options->max_items;
    // The window is a list of docids, which a multi-database's parts do not share: several stores rank in one pass.
    const bool one_part = database->database.size() == 1;
    if (!by_relevance && one_part && !options->collapse) {
        std::shared_ptr<const cxapian::SlotValues> table;
        if (options->kept_tables && options->sort_key_count == 1) table = slot_table(options->sort_keys[0].slot);
        match_by_value(database->database, layout.stems->expand(parsed), fielded, weight, options, *result,
                       std::move(table));
    } else if (options->rescore_window > 0 && one_part && by_relevance && extras
               && page_end <= uint64_t(options->rescore_window) * 10) {
        const auto window = static_cast<Xapian::doccount>(std::max<uint64_t>(options->rescore_window, page_end));
        match_rescored(database->database, fielded, fielded_ranking, weight, options, window, *result);
    } else {
        match_page(database->database, fielded.whole(), weight, options, *result);
    }
    *out = result.release();
    CXAPIAN_GUARD_END(error)
}

void cxapian_mset_visit_facets(const cxapian_mset *mset, cxapian_facet_visitor visitor, void *context) {
    try {
        for (const auto &facet : mset->facets) {
            for (auto value = facet.spy->values_begin(); value != facet.spy->values_end(); ++value) {
                const std::string name = *value;
                visitor(context, facet.slot, facet.shard, name.data(), name.size(), value.get_termfreq());
            }
        }
    } catch (...) {
    }
}

bool cxapian_mset_term_frequency(const cxapian_mset *mset, const char *term, size_t length, uint32_t *out,
                                 cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    const std::string name(term, length);
    const Xapian::doccount *known = mset->frequencies ? mset->frequencies->known(name) : nullptr;
    // Else the match's statistics, which hold every term the query names, weighed or not; else the database.
    *out = known != nullptr ? *known : mset->mset.get_termfreq(name);
    CXAPIAN_GUARD_END(error)
}

bool cxapian_mset_snippet(const cxapian_mset *mset, const char *text, size_t length, size_t snippet_length,
                          const char *hi_start, const char *hi_end, const char *omit, char **out, size_t *out_length,
                          cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    *out = nullptr;
    *out_length = 0;
    // No background model: it looks up every word of the text in the index to weigh the words the query lacks,
    // a third of a search's time with twenty long hits; the text given is already the window around the match.
    static thread_local const Xapian::Stem english("english");
    std::string snippet = mset->for_snippets().snippet(std::string(text, length), snippet_length, english,
                                             Xapian::MSet::SNIPPET_EXHAUSTIVE | Xapian::MSet::SNIPPET_CJK_NGRAM,
                                             hi_start, hi_end, omit);
    hand_out(snippet, out, out_length);
    CXAPIAN_GUARD_END(error)
}

void cxapian_mset_free(cxapian_mset *mset) { delete mset; }

uint32_t cxapian_mset_size(const cxapian_mset *mset) { return mset->page_size; }
uint32_t cxapian_mset_matches_estimated(const cxapian_mset *mset) { return mset->estimated; }
uint32_t cxapian_mset_matches_lower_bound(const cxapian_mset *mset) { return mset->lower_bound; }
uint32_t cxapian_mset_matches_upper_bound(const cxapian_mset *mset) { return mset->upper_bound; }

bool cxapian_mset_hit(const cxapian_mset *mset, uint32_t index, double *weight, char **data, size_t *data_length,
                      cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    const auto hit = mset->hit(index);
    *weight = hit.second;
    hand_out(mset->document(hit.first).get_data(), data, data_length);
    CXAPIAN_GUARD_END(error)
}

bool cxapian_mset_hit_value(const cxapian_mset *mset, uint32_t index, uint32_t slot, double *weight,
                            uint32_t *shard, char **value, size_t *value_length, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    const auto hit = mset->hit(index);
    *weight = hit.second;
    *shard = (hit.first - 1) % mset->shards;
    hand_out(mset->document(hit.first).get_value(slot), value, value_length);
    CXAPIAN_GUARD_END(error)
}

}  // extern "C"
