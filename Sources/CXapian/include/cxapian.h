/*
 * cxapian.h — the C face of Xapian for Spotlite.
 *
 * This is the only boundary between Swift and Xapian's C++. Rules every entry point follows:
 *  - it is noexcept: every C++ exception (Xapian::Error, std::exception, anything) is caught inside
 *    and turned into a status plus an owned cxapian_error (Xapian class name + message);
 *  - functions that can fail return bool (true = success) and take `cxapian_error **error` last;
 *    on failure *error is set and the caller frees it with cxapian_error_free();
 *  - handles are opaque; each `_new`/`_open` has exactly one `_free`;
 *  - strings passed in are (pointer, length) pairs and may hold any bytes; strings and byte buffers
 *    handed out are malloc'ed and freed by the caller with cxapian_free().
 */
#ifndef CXAPIAN_H
#define CXAPIAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- errors and memory ---------------------------------------------------------------------- */

/** An error caught at the boundary: the Xapian error class ("DatabaseLockError", …, or
 *  "std::exception"/"unknown" for non-Xapian exceptions) and its message. */
typedef struct cxapian_error cxapian_error;

const char *cxapian_error_class(const cxapian_error *error);
const char *cxapian_error_message(const cxapian_error *error);
void cxapian_error_free(cxapian_error *error);

/** Frees a string or buffer handed out by this library. */
void cxapian_free(void *pointer);

/** The Xapian library version, e.g. "1.4.22" (static storage). */
const char *cxapian_version(void);

/** Xapian's sortable encoding of a double (at most 9 bytes written to out; returns the length). */
size_t cxapian_sortable_serialise(double value, char out[16]);
/** The inverse of cxapian_sortable_serialise. */
double cxapian_sortable_unserialise(const char *bytes, size_t length);

/* ---- documents and the term generator -------------------------------------------------------- */

typedef struct cxapian_document cxapian_document;

cxapian_document *cxapian_document_new(void);
void cxapian_document_free(cxapian_document *document);
bool cxapian_document_set_data(cxapian_document *document, const char *data, size_t length,
                               cxapian_error **error);
bool cxapian_document_add_term(cxapian_document *document, const char *term, size_t length,
                               uint32_t wdf_increment, cxapian_error **error);
bool cxapian_document_add_boolean_term(cxapian_document *document, const char *term, size_t length,
                                       cxapian_error **error);
bool cxapian_document_add_value(cxapian_document *document, uint32_t slot, const char *value,
                                size_t length, cxapian_error **error);

typedef struct cxapian_term_generator cxapian_term_generator;

cxapian_term_generator *cxapian_term_generator_new(void);
void cxapian_term_generator_free(cxapian_term_generator *generator);
/** language: a Snowball name such as "english"; "" or "none" switches stemming off. */
bool cxapian_term_generator_set_stemmer(cxapian_term_generator *generator, const char *language,
                                        cxapian_error **error);
/** Words longer than this (in bytes) are skipped rather than indexed; Xapian's default is 64. */
void cxapian_term_generator_set_max_word_length(cxapian_term_generator *generator, uint32_t length);
bool cxapian_term_generator_set_document(cxapian_term_generator *generator, cxapian_document *document,
                                         cxapian_error **error);
bool cxapian_term_generator_index_text(cxapian_term_generator *generator, const char *text, size_t length,
                                       uint32_t wdf_increment, const char *prefix, size_t prefix_length,
                                       cxapian_error **error);
void cxapian_term_generator_increase_termpos(cxapian_term_generator *generator, uint32_t delta);

typedef struct cxapian_writable_database cxapian_writable_database;

/* ---- word pairs ------------------------------------------------------------------------------ */

/** The common words of an index, whose pairs at consecutive positions get terms of their own (engine/word_pairs.h):
 *  an exact phrase of them is then looked up rather than checked position by position in every document holding its
 *  words. */
typedef struct cxapian_word_pairs cxapian_word_pairs;

/** The words of `words` (one a line; at most 255 are used), for documents whose title terms are `title_prefix` + word.
 *  NULL only when out of memory. */
cxapian_word_pairs *cxapian_word_pairs_new(const char *words, size_t length, const char *title_prefix,
                                           size_t prefix_length);
void cxapian_word_pairs_free(cxapian_word_pairs *pairs);
/** Adds the pair terms of `document`'s text (call once all of it is indexed). */
bool cxapian_document_add_word_pairs(cxapian_document *document, const cxapian_word_pairs *pairs,
                                     cxapian_error **error);

/** Document frequencies of the words of a sample of documents, to choose an index's common words from. */
typedef struct cxapian_word_sample cxapian_word_sample;

/** NULL only when out of memory. */
cxapian_word_sample *cxapian_word_sample_new(const char *title_prefix, size_t prefix_length);
void cxapian_word_sample_free(cxapian_word_sample *sample);
/** Counts the distinct words of `document`'s title and detail. */
bool cxapian_word_sample_add(cxapian_word_sample *sample, const cxapian_document *document, cxapian_error **error);
/** The words in at least `min_share` of the documents added and in at least `min_documents`, most frequent first, at
 *  most `max_words`, one a line (malloc'ed in *out; NULL with length 0 for none). */
bool cxapian_word_sample_choose(const cxapian_word_sample *sample, double min_share, uint32_t min_documents,
                                uint32_t max_words, char **out, size_t *out_length, cxapian_error **error);

/* ---- stem terms ------------------------------------------------------------------------------ */

/** Which stem terms ("Z" + stem) an index leaves out: those that repeat a word that is its own stem, held in no other
 *  form in the field (engine/stem_terms.h). A query then reads a stem's documents from the stem term and the word's. */
typedef struct cxapian_stem_terms cxapian_stem_terms;

/** Stems of `language` (a Snowball name), for documents whose title terms are `title_prefix` + word. NULL when out of
 *  memory or for a language Snowball does not know. */
cxapian_stem_terms *cxapian_stem_terms_new(const char *language, const char *title_prefix, size_t prefix_length);
void cxapian_stem_terms_free(cxapian_stem_terms *stems);
/** Leaves out of `document` (all of its text indexed) the stem terms that repeat a word, adding their wdf to the term
 *  `length_term` (one no query weighs) so that the document's length is unchanged, and marks the documents that keep
 *  one beside its word. */
bool cxapian_document_prune_stems(cxapian_document *document, const cxapian_stem_terms *stems, const char *length_term,
                                  size_t length, cxapian_error **error);

/* ---- packed positions ------------------------------------------------------------------------ */

/** The numbers of an index's positional terms (engine/positions.h): a document's positions are kept as its data,
 *  its terms in the order of its text, each as its number, and not in Xapian's position table (but a long
 *  document's). The numbers live in the index's metadata; the next one under `key`, which also says that the index
 *  packs its positions. */
typedef struct cxapian_position_terms cxapian_position_terms;

/** For the index whose positions key is `key`. `reads`: numbers it does not know are read from the database asked
 *  for (an index written to over time); false for the shards of a fresh build, which share one object (safe to use
 *  from several threads, each with its own database) whose numbers none of them has yet. NULL only when out of
 *  memory. */
cxapian_position_terms *cxapian_position_terms_new(const char *key, size_t key_length, bool reads);
void cxapian_position_terms_free(cxapian_position_terms *terms);
/** Forgets the numbers read or given: after a cancelled transaction, which took back the ones written. */
void cxapian_position_terms_forget(cxapian_position_terms *terms);
/** Packs `document`'s positions (all of its text indexed) into its data and removes them from its terms, whose wdf
 *  stay; numbers it gives are written into `database`'s metadata. A document of over 256 positions keeps Xapian's. */
bool cxapian_document_pack_positions(cxapian_document *document, cxapian_position_terms *terms,
                                     cxapian_writable_database *database, cxapian_error **error);

/** What an index's metadata records of its terms, for queries to read (once per database). */
typedef struct {
    /** Title terms are this prefix + word. */
    const char *title_prefix;
    /** The metadata key of the index's common words (cxapian_word_pairs); NULL for none. */
    const char *word_pairs_key;
    /** The metadata key of the language of the stem terms the index leaves out (cxapian_stem_terms); NULL for none. */
    const char *stems_key;
    /** Only a project's document holds its title's term (this prefix + key); every document of a project holds its
     *  domain term (domain_prefix + identifier): a query's project title terms are resolved into the domain terms of
     *  the documents holding them. NULL for an index whose every document holds its project's title term. */
    const char *container_prefix;
    const char *domain_prefix;
    /** The metadata key that says an index packs its documents' positions into their data (cxapian_position_terms):
     *  phrases are then checked against them (an index without the key: against Xapian's position lists). NULL:
     *  phrases stay Xapian's own operators. */
    const char *positions_key;
} cxapian_index_layout;

/** Makes the generator split spans of CJK characters into unigrams and bigrams (Xapian's FLAG_CJK_NGRAM), which
 *  queries parsed with CXAPIAN_QP_CJK_NGRAM find. */
void cxapian_term_generator_enable_cjk_ngrams(cxapian_term_generator *generator);

/* ---- databases ------------------------------------------------------------------------------- */

typedef struct cxapian_database cxapian_database;

/** Opens a database (or a stub database file, or a directory holding a XAPIANDB stub) for reading. */
bool cxapian_database_open(const char *path, cxapian_database **out, cxapian_error **error);
/** One database searching all of `paths` together (Xapian's multi-database: term statistics combined, so scores
 *  are comparable across them). Docids interleave: docid d is (d - 1) % count + 1 of database (d - 1) / count. */
bool cxapian_database_open_many(const char *const *paths, size_t count, cxapian_database **out, cxapian_error **error);
void cxapian_database_free(cxapian_database *database);
/** How many tables (kept_tables) were made at this reader's asking, rather than taken from another reader of the
 *  same database at the same revision in this process. */
uint64_t cxapian_database_tables_made(cxapian_database *database);
/** Returns once no table is being made: the tables are made on a thread of their own, off the searches that ask for
 *  them (kept_tables.h's TableMaker); tests and benchmarks wait for them here. */
void cxapian_tables_wait(void);
/** Reopens at the latest committed revision; *changed tells whether it moved. */
bool cxapian_database_reopen(cxapian_database *database, bool *changed, cxapian_error **error);
bool cxapian_database_doccount(cxapian_database *database, uint32_t *out, cxapian_error **error);
/** Whether any document holds a position in Xapian's position table (an index that packs them has none there). */
bool cxapian_database_has_positions(cxapian_database *database, bool *out, cxapian_error **error);
bool cxapian_database_term_exists(cxapian_database *database, const char *term, size_t length, bool *out,
                                  cxapian_error **error);
/** Metadata value for key in one of the databases opened (part: its position in cxapian_database_open_many's
 *  paths; 0 for one database, and 0 is what Xapian's multi-database answers); an absent key gives an empty buffer
 *  (*out may then be NULL). */
bool cxapian_database_get_metadata(cxapian_database *database, size_t part, const char *key, size_t key_length,
                                   char **out, size_t *out_length, cxapian_error **error);

/** Called once per term; return false to stop. value is the first indexed document's value in the
 *  requested slot (empty if none). */
typedef bool (*cxapian_term_visitor)(void *context, const char *term, size_t term_length,
                                     const char *value, size_t value_length);
/** The word of the spelling table nearest `word` (at most `max_edit_distance` edits, the most frequent of
 *  equals), malloc'ed in *out (NULL with length 0 when there is none). */
bool cxapian_database_spelling_suggestion(cxapian_database *database, const char *word, size_t length,
                                          uint32_t max_edit_distance, char **out, size_t *out_length,
                                          cxapian_error **error);

/** Visits every term starting with prefix, in term order, with the value in `slot` of the first
 *  document indexed by it (a unique-term walk: one document per term). */
bool cxapian_database_visit_terms(cxapian_database *database, const char *prefix, size_t prefix_length,
                                  const char *after, size_t after_length, uint32_t slot,
                                  cxapian_term_visitor visitor, void *context, cxapian_error **error);

enum {
    /** Create the database if it does not exist (else open it). */
    CXAPIAN_DB_CREATE_OR_OPEN = 1,
    /** Create a new database, replacing any there. */
    CXAPIAN_DB_CREATE_OR_OVERWRITE = 2,
    /** Open an existing database only. */
    CXAPIAN_DB_OPEN = 3,
    /** Flag: do not fsync on commit (for a fresh build that is swapped in only when complete). */
    CXAPIAN_DB_NO_SYNC = 0x100,
};

/** Opens for writing. Fails with a DatabaseLockError if another writer still holds the lock after 2 s (a database
 *  just closed stays locked while a child forked by another thread shares the lock; see engine/writable.h).
 *  Xapian flushes every 10,000 changed documents, or XAPIAN_FLUSH_THRESHOLD from the environment. */
bool cxapian_writable_database_open(const char *path, int flags, cxapian_writable_database **out,
                                    cxapian_error **error);
/** Frees the handle; uncommitted changes are discarded and the lock is released. */
void cxapian_writable_database_free(cxapian_writable_database *database);
bool cxapian_writable_database_close(cxapian_writable_database *database, cxapian_error **error);
bool cxapian_writable_database_replace_document(cxapian_writable_database *database, const char *unique_term,
                                                size_t length, cxapian_document *document,
                                                cxapian_error **error);
/** Adds a document under a new id (for a fresh database, where no unique term can already be present). */
bool cxapian_writable_database_add_document(cxapian_writable_database *database, cxapian_document *document,
                                            cxapian_error **error);
/** Adds to the spelling table each of `words` (separated by newlines) that it lacks and that the database's text
 *  holds in a title (a term `title_prefix` + word) or in at least `minimum_frequency` documents, with the number of
 *  documents holding it. A word used once in one detail is more often a typo, a hash or a name than a correction
 *  worth offering, and those are most of a spelling table. Sees the writer's uncommitted changes. */
bool cxapian_writable_database_add_spellings(cxapian_writable_database *database, const char *words, size_t length,
                                             const char *title_prefix, uint32_t minimum_frequency,
                                             cxapian_error **error);
/** The spelling data of a database built in shards, in one pass: every word of the shards' text (a term, or a term
 *  under `title_prefix`, that is two bytes or more and starts with a lowercase or non-ASCII letter) that is in a
 *  title or in at least `minimum_frequency` documents of all the shards together, added with that document
 *  frequency to the spelling table of the first shard, and committed (Xapian's compaction then carries it into the
 *  merged database). */
bool cxapian_add_spellings_from_shards(const char *const *paths, size_t count, const char *title_prefix,
                                       uint32_t minimum_frequency, cxapian_error **error);
/** Deletes every document indexed by term (a unique id, or a domain term for a whole domain). */
bool cxapian_writable_database_delete_documents(cxapian_writable_database *database, const char *term,
                                                size_t length, cxapian_error **error);
bool cxapian_writable_database_set_metadata(cxapian_writable_database *database, const char *key,
                                            size_t key_length, const char *value, size_t value_length,
                                            cxapian_error **error);
bool cxapian_writable_database_get_metadata(cxapian_writable_database *database, const char *key,
                                            size_t key_length, char **out, size_t *out_length,
                                            cxapian_error **error);
bool cxapian_writable_database_doccount(cxapian_writable_database *database, uint32_t *out,
                                        cxapian_error **error);
bool cxapian_writable_database_commit(cxapian_writable_database *database, cxapian_error **error);
/** Starts a transaction; its changes become visible, together, on commit_transaction. */
bool cxapian_writable_database_begin_transaction(cxapian_writable_database *database, bool flushed,
                                                 cxapian_error **error);
bool cxapian_writable_database_commit_transaction(cxapian_writable_database *database,
                                                  cxapian_error **error);
bool cxapian_writable_database_cancel_transaction(cxapian_writable_database *database,
                                                  cxapian_error **error);
/** Merges the databases at `sources` (documents renumbered in order; spelling frequencies summed; metadata
 *  from the first source that has the key, but under `positions_key`, NULL for none, the largest of the sources'
 *  next numbers: cxapian_position_terms) into one new, compacted database at `destination`, of 16 KiB blocks (as
 *  every database this library creates). */
bool cxapian_compact(const char *const *sources, size_t source_count, const char *destination,
                     const char *positions_key, size_t positions_key_length, cxapian_error **error);
/** Checks the integrity of the database at `path` as `xapian-check` does: every block of every table, and the
 *  tables against each other. `*problems` is the number of inconsistencies found and `*text` (malloc'ed,
 *  `*text_length` bytes) what the check printed about them. Damage the check cannot get past is returned as
 *  an error (e.g. DatabaseCorruptError, or DatabaseError for a truncated table). */
bool cxapian_database_check(const char *path, size_t *problems, char **text, size_t *text_length,
                            cxapian_error **error);

/* ---- queries ---------------------------------------------------------------------------------- */

typedef struct cxapian_query cxapian_query;

typedef enum {
    CXAPIAN_OP_AND = 0,
    CXAPIAN_OP_OR = 1,
    CXAPIAN_OP_AND_NOT = 2,
    CXAPIAN_OP_FILTER = 3,
    /** The left must match; the right adds weight where it also matches. */
    CXAPIAN_OP_AND_MAYBE = 4,
} cxapian_query_op;

cxapian_query *cxapian_query_new_term(const char *term, size_t length);
/** The OR of the terms in `terms`: `length` bytes of NUL-terminated terms, one after another. NULL only when out of
 *  memory. */
cxapian_query *cxapian_query_new_any_term(const char *terms, size_t length);
cxapian_query *cxapian_query_new_match_all(void);
cxapian_query *cxapian_query_new_match_nothing(void);
/** A new query `left op right`; the operands stay owned by the caller. */
bool cxapian_query_combine(cxapian_query_op op, const cxapian_query *left, const cxapian_query *right,
                           cxapian_query **out, cxapian_error **error);
void cxapian_query_free(cxapian_query *query);
bool cxapian_query_is_empty(const cxapian_query *query);
/** Xapian's own description of the query (malloc'ed). */
char *cxapian_query_description(const cxapian_query *query);

/** `query` with each compound word the query parser met written out with its parts grouped so that the word counts
 *  once (engine/compounds.h). `compounds`: one compound a line, the word then its parts, lowercased,
 *  separated by spaces; their terms are made as a parser with `stemming_language` and STEM_SOME makes them. */
bool cxapian_query_group_compounds(const cxapian_query *query, const char *compounds, size_t length,
                                   const char *stemming_language, const char *title_prefix, cxapian_query **out,
                                   cxapian_error **error);

typedef struct cxapian_query_parser cxapian_query_parser;

enum {
    CXAPIAN_QP_BOOLEAN = 1,
    CXAPIAN_QP_PHRASE = 2,
    CXAPIAN_QP_LOVEHATE = 4,
    CXAPIAN_QP_BOOLEAN_ANY_CASE = 8,
    CXAPIAN_QP_WILDCARD = 16,
    CXAPIAN_QP_PURE_NOT = 32,
    CXAPIAN_QP_PARTIAL = 64,
    CXAPIAN_QP_SPELLING_CORRECTION = 128,
    /** Split spans of CJK characters into unigrams and bigrams, as the term generator's CJK n-grams. */
    CXAPIAN_QP_CJK_NGRAM = 256,
    CXAPIAN_QP_DEFAULT = 7,
};

typedef enum {
    CXAPIAN_STEM_NONE = 0,
    CXAPIAN_STEM_SOME = 1,
    CXAPIAN_STEM_ALL = 2,
    CXAPIAN_STEM_ALL_Z = 3,
    CXAPIAN_STEM_SOME_FULL_POS = 4,
} cxapian_stem_strategy;

/** What a field mapper produced. Strings are malloc'ed by the mapper and freed by the library. */
typedef struct {
    /** CXAPIAN_FIELD_TERM: the boolean term. */
    char *term;
    size_t term_length;
    /** CXAPIAN_FIELD_VALUE_RANGE: values in `slot` between begin and end (inclusive); NULL means open.
     *  CXAPIAN_FIELD_SLOT_TERM: `slot`, and in `begin` the value its documents hold there. */
    uint32_t slot;
    char *begin;
    size_t begin_length;
    char *end;
    size_t end_length;
    /** CXAPIAN_FIELD_REJECTED: why the query is refused. */
    char *message;
} cxapian_field_result;

enum {
    CXAPIAN_FIELD_REJECTED = -1,
    CXAPIAN_FIELD_NOTHING = 0,
    CXAPIAN_FIELD_TERM = 1,
    CXAPIAN_FIELD_VALUE_RANGE = 2,
    /** Any of several boolean terms: `term` holds them, each ended by a NUL byte. */
    CXAPIAN_FIELD_ANY_TERM = 3,
    /** The documents without the boolean term in `term`. */
    CXAPIAN_FIELD_NOT_TERM = 4,
    /** The boolean term in `term`, which exactly the documents holding the value `begin` in `slot` hold (see
     *  cxapian_query_new_slot_term). */
    CXAPIAN_FIELD_SLOT_TERM = 5,
};

/** Maps a field's text to a filter: returns one of the CXAPIAN_FIELD_ codes and fills `result`. */
typedef int (*cxapian_field_mapper)(void *context, const char *text, size_t length, cxapian_field_result *result);

cxapian_query_parser *cxapian_query_parser_new(void);
void cxapian_query_parser_free(cxapian_query_parser *parser);
bool cxapian_query_parser_set_stemmer(cxapian_query_parser *parser, const char *language,
                                      cxapian_error **error);
void cxapian_query_parser_set_stemming_strategy(cxapian_query_parser *parser, cxapian_stem_strategy strategy);
/** and_by_default: true for OP_AND between plain words, false for OP_OR. */
void cxapian_query_parser_set_default_and(cxapian_query_parser *parser, bool and_by_default);
/** Used for wildcard expansion and spelling; the database must outlive the parser's use. */
void cxapian_query_parser_set_database(cxapian_query_parser *parser, cxapian_database *database);
bool cxapian_query_parser_add_prefix(cxapian_query_parser *parser, const char *field, const char *prefix,
                                     cxapian_error **error);
bool cxapian_query_parser_add_boolean_prefix(cxapian_query_parser *parser, const char *field,
                                             const char *prefix, bool exclusive, cxapian_error **error);
/** Registers a boolean field whose terms come from `mapper` (called during parse, with `context`). `exclusive`:
 *  several filters of the field match any of them (OR); else each must match (AND). */
bool cxapian_query_parser_add_boolean_mapper(cxapian_query_parser *parser, const char *field,
                                             cxapian_field_mapper mapper, void *context, bool exclusive,
                                             cxapian_error **error);
bool cxapian_query_parser_parse(cxapian_query_parser *parser, const char *text, size_t length, unsigned flags,
                                cxapian_query **out, cxapian_error **error);
/** Bounds wildcard expansion: a wildcard matching more than `limit` words fails the search with a
 *  WildcardError. Partial (search-as-you-type) terms expand to the `partial_limit` most frequent words. */
void cxapian_query_parser_set_max_expansion(cxapian_query_parser *parser, uint32_t limit, uint32_t partial_limit);
/** After a parse with CXAPIAN_QP_SPELLING_CORRECTION: the corrected query string, or "" (malloc'ed). */
char *cxapian_query_parser_corrected_query(cxapian_query_parser *parser);

/** The boolean term `term`, which exactly the documents holding `value` in `slot` hold (a status, a priority): a
 *  search with kept tables checks a candidate in its table of the slot instead of reading the term's list up to it. */
bool cxapian_query_new_slot_term(const char *term, size_t term_length, uint32_t slot, const char *value,
                                 size_t value_length, cxapian_query **out, cxapian_error **error);
/** A query for documents whose value in `slot` lies between begin and end (NULL = open end). */
bool cxapian_query_new_value_range(uint32_t slot, const char *begin, size_t begin_length, const char *end,
                                   size_t end_length, cxapian_query **out, cxapian_error **error);

/* ---- matching --------------------------------------------------------------------------------- */

typedef struct cxapian_mset cxapian_mset;

/** One key of a sort: a value slot, ascending unless descending. */
typedef struct {
    uint32_t slot;
    bool descending;
} cxapian_sort_key;

/** Spotlite's ranking over a title and a detail field (see engine/query_rewrite.h): BM25 (k1, b) over the detail, plus
 *  title_bonus × the word's idf for a word in the title (terms prefixed title_prefix, carrying wdf 0). */
typedef struct {
    double k1;
    double b;
    double title_bonus;
    const char *title_prefix;
    /** Weight of the Jaccard similarity of the query's words and a title's (0: none); the title's distinct word
     *  count is read, sortable-serialised, from title_words_slot. */
    double title_match;
    uint32_t title_words_slot;
} cxapian_fielded_ranking;

/** "More like this": a query for documents like the one indexed by `unique_term`: its title's words and the
 *  detail words relevance feedback weighs highest, up to `max_words`, each as (detail term OR title term), for
 *  the fielded ranking `ranking` (title terms prefixed with its title_prefix); the feedback words weigh
 *  `feedback_weight` times a title word. `layout` (may be NULL) says which stem terms the index leaves out. The
 *  document itself matches too. Fails with an InvalidArgumentError if no document has `unique_term`. */
bool cxapian_query_new_similar(cxapian_database *database, const char *unique_term, size_t unique_term_length,
                               uint32_t max_words, const cxapian_fielded_ranking *ranking,
                               const cxapian_index_layout *layout, double feedback_weight, cxapian_query **out,
                               cxapian_error **error);

/** How to run a query. */
typedef struct {
    uint32_t first;
    uint32_t max_items;
    /** Keys to sort by, most significant first; with by_relevance_first, relevance comes before them
     *  (they then only break ties). No keys and by_relevance_first: plain relevance order. */
    const cxapian_sort_key *sort_keys;
    size_t sort_key_count;
    bool by_relevance_first;
    /** Whether what relevance and the keys leave tied comes highest docid (latest added) first. */
    bool docids_descending;
    /** Value slots to count over all matches (facets). */
    const uint32_t *facet_slots;
    size_t facet_slot_count;
    /** Examine at least this many matches (the document count makes totals and facets exact). */
    uint32_t check_at_least;
    /** Without a ranking: weigh nothing (Xapian's BoolWeight), for matches wanted as a set. */
    bool unweighted;
    /** The two-field ranking; NULL ranks the query as given with Xapian's BM25. */
    const cxapian_fielded_ranking *ranking;
    /** Extra weight for the matches it matches too (e.g. the words as an exact phrase); NULL for none. It never
     *  changes which documents match. */
    const cxapian_query *bonus;
    /** With the fielded ranking in relevance order and a bonus: the bonus and the title similarity are weighed only
     *  for this many of the best matches without them (or the page, if it reaches further), which are then ranked
     *  by the whole query, as a search engine's rescoring window does; 0 weighs them for every match. */
    uint32_t rescore_window;
    /** Seconds from the start of the search after which matching stops (the page is then the best of the matches
     *  examined, their number a lower bound of the total); 0 for no limit, at most an hour. A filter that asks the
     *  clock every 64 documents it visits, not Xapian's Enquire::set_time_limit, whose timer can write into a
     *  returned match's stack (engine/sources/deadline.h). */
    double time_limit;
    /** With collapse: of the matches with equal values in collapse_slot, only the best ranked is kept (Xapian's
     *  Enquire::set_collapse_key with one per key); the counts are then of distinct values. */
    bool collapse;
    uint32_t collapse_slot;
    /** With the fielded ranking on a single database: read the documents' lengths, the title similarity's word
     *  counts, and a sort key (one key, sorted by value, of at most 15 bytes a document), from tables of the
     *  database handle's, each made on its second search at a revision that needs it and kept until the revision
     *  moves on (one pass over the index: worth it for a reader that searches again, not for a single search). */
    bool kept_tables;
    /** With hit_values: the slot whose value each hit is read for (cxapian_mset_hit_value), with kept_tables on a
     *  single database from a table of the database handle's, as the other kept tables are. */
    bool hit_values;
    uint32_t hit_value_slot;
    /** What the index's metadata says of its terms (NULL: nothing). Its stem terms left out, the query reads a stem's
     *  documents as those of its class (engine/stem_terms.h). Its common words, with the fielded ranking on a single
     *  database: each exact phrase of two of them is filtered by their pair term, which only documents holding the
     *  phrase have. */
    const cxapian_index_layout *layout;
} cxapian_enquire_options;

bool cxapian_enquire(cxapian_database *database, const cxapian_query *query, const cxapian_enquire_options *options,
                     cxapian_mset **out, cxapian_error **error);
/** Called once per distinct value of a facet slot in each database of a multi-database (shard: its position;
 *  always 0 for one database), in no particular order. */
typedef void (*cxapian_facet_visitor)(void *context, uint32_t slot, uint32_t shard, const char *value, size_t length,
                                      uint32_t count);
void cxapian_mset_visit_facets(const cxapian_mset *mset, cxapian_facet_visitor visitor, void *context);
/** The part of `text` where the query matched, with matched words between hi_start and hi_end (malloc'ed). */
bool cxapian_mset_snippet(const cxapian_mset *mset, const char *text, size_t length, size_t snippet_length,
                          const char *hi_start, const char *hi_end, const char *omit, char **out, size_t *out_length,
                          cxapian_error **error);
/** How many documents of the searched database hold `term`: from what the match read where it read it (a fielded
 *  ranking's rewrite reads each word's terms in both fields; the match, every term the query names), else from the
 *  database. */
bool cxapian_mset_term_frequency(const cxapian_mset *mset, const char *term, size_t length, uint32_t *out,
                                 cxapian_error **error);
void cxapian_mset_free(cxapian_mset *mset);
uint32_t cxapian_mset_size(const cxapian_mset *mset);
uint32_t cxapian_mset_matches_estimated(const cxapian_mset *mset);
uint32_t cxapian_mset_matches_lower_bound(const cxapian_mset *mset);
uint32_t cxapian_mset_matches_upper_bound(const cxapian_mset *mset);
/** The weight and document data of the hit at index; fails if the database moved underneath. */
bool cxapian_mset_hit(const cxapian_mset *mset, uint32_t index, double *weight, char **data, size_t *data_length,
                      cxapian_error **error);
/** The weight, the database it came from (its position in a multi-database; 0 for one database) and the value in
 *  `slot` of the hit at index (malloc'ed); fails if the database moved underneath. */
bool cxapian_mset_hit_value(const cxapian_mset *mset, uint32_t index, uint32_t slot, double *weight,
                            uint32_t *shard, char **value, size_t *value_length, cxapian_error **error);

#ifdef __cplusplus
}
#endif

#endif /* CXAPIAN_H */
