// capi_write.cpp — the C API of indexing: documents, the term generator, word pairs and stem terms, writable
// databases, spellings, compaction and checks.

#include "capi.h"

#include <xapian.h>

#include <new>
#include <sstream>
#include <string>
#include <vector>

using namespace cxapian::capi;

namespace {

/// The block size of the databases made here (Xapian's default is 8 KiB). Each B-tree entry of a posting list,
/// position list or term list carries a few bytes of its own, and an index of short documents has millions: 16 KiB
/// blocks make a compacted index smaller; 64 KiB ones, a little smaller still, read more bytes for each block
/// visited (docs/decisions/0005-index-size.md).
constexpr unsigned block_size = 16384;

}  // namespace

extern "C" {

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

/* ---- packed positions ---- */

struct cxapian_position_terms {
    cxapian::PositionTerms terms;
};

cxapian_position_terms *cxapian_position_terms_new(const char *key, size_t key_length, bool reads) {
    try {
        return new cxapian_position_terms{cxapian::PositionTerms(std::string(key, key_length), reads)};
    } catch (...) {
        return nullptr;
    }
}

void cxapian_position_terms_free(cxapian_position_terms *terms) { delete terms; }

void cxapian_position_terms_forget(cxapian_position_terms *terms) {
    try {
        terms->terms.forget();
    } catch (...) {
        // Clearing a map and a mutex's lock throw nothing here.
    }
}

bool cxapian_document_pack_positions(cxapian_document *document, cxapian_position_terms *terms,
                                     cxapian_writable_database *database, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    database->writer.changed();  // the terms' numbers it gives are written to the metadata
    cxapian::pack_positions(document->document, terms->terms, database->writer.database());
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
    *out = new cxapian_writable_database{cxapian::RecordingWriter(
        cxapian::open_writable(path, action | Xapian::DB_BACKEND_GLASS, static_cast<int>(block_size)))};
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
    database->writer.database().close();
    CXAPIAN_GUARD_END(error)
}

bool cxapian_writable_database_replace_document(cxapian_writable_database *database, const char *unique_term,
                                                size_t length, cxapian_document *document,
                                                cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    database->writer.replace(std::string(unique_term, length), document->document);
    CXAPIAN_GUARD_END(error)
}

bool cxapian_writable_database_add_document(cxapian_writable_database *database, cxapian_document *document,
                                            cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    database->writer.add(document->document);
    CXAPIAN_GUARD_END(error)
}

bool cxapian_writable_database_add_spellings(cxapian_writable_database *database, const char *words, size_t length,
                                             const char *title_prefix, uint32_t minimum_frequency,
                                             cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    std::vector<std::string> list;
    std::istringstream lines(std::string(words, length));
    for (std::string word; std::getline(lines, word);) list.push_back(std::move(word));
    database->writer.changed();
    cxapian::add_spellings(database->writer.database(), std::move(list), title_prefix != nullptr ? title_prefix : "",
                           minimum_frequency);
    CXAPIAN_GUARD_END(error)
}

bool cxapian_add_spellings_from_shards(const char *const *paths, size_t count, const char *title_prefix,
                                       uint32_t minimum_frequency, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    cxapian::add_spellings_from_shards(std::vector<std::string>(paths, paths + count),
                                       title_prefix != nullptr ? title_prefix : "", minimum_frequency);
    CXAPIAN_GUARD_END(error)
}

bool cxapian_writable_database_delete_documents(cxapian_writable_database *database, const char *term,
                                                size_t length, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    database->writer.remove(std::string(term, length));
    CXAPIAN_GUARD_END(error)
}

bool cxapian_writable_database_set_metadata(cxapian_writable_database *database, const char *key,
                                            size_t key_length, const char *value, size_t value_length,
                                            cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    database->writer.set_metadata(std::string(key, key_length), std::string(value, value_length));
    CXAPIAN_GUARD_END(error)
}

bool cxapian_writable_database_get_metadata(cxapian_writable_database *database, const char *key,
                                            size_t key_length, char **out, size_t *out_length,
                                            cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    hand_out(database->writer.database().get_metadata(std::string(key, key_length)), out, out_length);
    CXAPIAN_GUARD_END(error)
}

bool cxapian_writable_database_doccount(cxapian_writable_database *database, uint32_t *out,
                                        cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    *out = database->writer.database().get_doccount();
    CXAPIAN_GUARD_END(error)
}

bool cxapian_writable_database_commit(cxapian_writable_database *database, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    database->writer.commit();
    CXAPIAN_GUARD_END(error)
}

bool cxapian_writable_database_begin_transaction(cxapian_writable_database *database, bool flushed,
                                                 cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    database->writer.begin_transaction(flushed);
    CXAPIAN_GUARD_END(error)
}

bool cxapian_writable_database_commit_transaction(cxapian_writable_database *database, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    database->writer.commit_transaction();
    CXAPIAN_GUARD_END(error)
}

bool cxapian_writable_database_cancel_transaction(cxapian_writable_database *database, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    database->writer.cancel_transaction();
    CXAPIAN_GUARD_END(error)
}

bool cxapian_compact(const char *const *sources, size_t source_count, const char *destination,
                     const char *positions_key, size_t positions_key_length, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    if (source_count == 0) throw Xapian::InvalidArgumentError("nothing to compact");
    Xapian::Database database;
    for (size_t i = 0; i < source_count; ++i) database.add_database(Xapian::Database(sources[i]));
    cxapian::PositionsCompactor compactor(
        positions_key != nullptr ? std::string(positions_key, positions_key_length) : std::string());
    database.compact(destination, Xapian::DB_BACKEND_GLASS, block_size, compactor);
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
}  // extern "C"
