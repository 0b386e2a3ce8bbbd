// capi_read.cpp — the C API of read-only databases: opening one or several, reopening, their terms and metadata.

#include "capi.h"

#include <xapian.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

using namespace cxapian::capi;

namespace {

/// `path` made absolute (symbolic links resolved), or as given if it cannot be.
std::string absolute_path(const char *path) {
    std::unique_ptr<char, decltype(&std::free)> resolved(::realpath(path, nullptr), &std::free);
    return resolved ? std::string(resolved.get()) : std::string(path);
}

}  // namespace

extern "C" {

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
               database->slot_values.tables_made() + database->positions.tables_made();
    } catch (...) {
        return 0;  // a lock that cannot be taken: nothing made is known
    }
}

void cxapian_tables_wait(void) { cxapian::TableMaker::wait(); }

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

bool cxapian_database_has_positions(cxapian_database *database, bool *out, cxapian_error **error) {
    CXAPIAN_GUARD_BEGIN
    *out = database->database.has_positions();
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

}  // extern "C"
