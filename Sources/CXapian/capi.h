// capi.h — the C API's handles and its guard, shared by the capi_*.cpp files (internal to CXapian). The engine
// (engine/) knows nothing of the C API: these files only convert arguments, call Xapian or the engine, and catch.

#ifndef CXAPIAN_CAPI_H
#define CXAPIAN_CAPI_H

#include "cxapian.h"
#include "engine/engine.h"

#include <xapian.h>

#include <cstddef>
#include <string>
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

/// A database opened for searching: the engine's reader.
struct cxapian_database : cxapian::Reader {};

/// A database opened for writing: each commit records the documents it wrote (engine/changes.h).
struct cxapian_writable_database {
    cxapian::RecordingWriter writer;
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

/// A search's page: the engine's match result.
struct cxapian_mset : cxapian::MatchResult {};

namespace cxapian::capi {

/// Returned when even the error cannot be allocated; never freed.
extern cxapian_error out_of_memory_error;

/// A malloc'ed, NUL-terminated copy (nullptr when out of memory).
char *copy_string(const char *text, size_t length) noexcept;
char *copy_string(const std::string &text) noexcept;

/// Called from inside a catch (...) block: the exception in flight as a cxapian_error, stored in `*error` (freed
/// at once for a NULL `error`).
void report(cxapian_error **error) noexcept;

/// Copies `value` into a malloc'ed (pointer, length) pair for the caller (nullptr for an empty value); throws
/// std::bad_alloc when out of memory.
void hand_out(const std::string &value, char **out, size_t *out_length);

/// The stemmer of `language`, remembering its stems (engine/stemmer.h); none for NULL, "" or "none".
Xapian::Stem make_stemmer(const char *language);

}  // namespace cxapian::capi

// The body of an entry point that reports through a cxapian_error: true when it returns normally, false with the
// error set when anything was thrown.
#define CXAPIAN_GUARD_BEGIN try {
#define CXAPIAN_GUARD_END(error)       \
    return true;                       \
    }                                  \
    catch (...) {                      \
        cxapian::capi::report(error);  \
        return false;                  \
    }

#endif
