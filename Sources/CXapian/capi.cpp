// capi.cpp — the C API's errors, memory and the functions of no handle. Every exported function is noexcept and
// catches everything: a C++ exception unwinding into Swift frames is undefined behaviour, so none leaves the C API.

#include "capi.h"

#include <xapian.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

namespace cxapian::capi {

cxapian_error out_of_memory_error = {const_cast<char *>("std::bad_alloc"), const_cast<char *>("out of memory")};

char *copy_string(const char *text, size_t length) noexcept {
    char *copy = static_cast<char *>(std::malloc(length + 1));
    if (copy == nullptr) return nullptr;
    if (length > 0) std::memcpy(copy, text, length);
    copy[length] = '\0';
    return copy;
}

char *copy_string(const std::string &text) noexcept { return copy_string(text.data(), text.size()); }

namespace {

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

}  // namespace

void report(cxapian_error **error) noexcept {
    cxapian_error *caught = error_from_current_exception();
    if (error != nullptr) {
        *error = caught;
    } else {
        cxapian_error_free(caught);
    }
}

void hand_out(const std::string &value, char **out, size_t *out_length) {
    *out_length = value.size();
    *out = nullptr;
    if (value.empty()) return;
    *out = copy_string(value);
    if (*out == nullptr) throw std::bad_alloc();
}

Xapian::Stem make_stemmer(const char *language) { return cxapian::make_stemmer(language != nullptr ? language : ""); }

}  // namespace cxapian::capi

using namespace cxapian::capi;

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

}  // extern "C"
