// varint.h — the 7-bit varints of the engine's own metadata and document data (internal to CXapian).

#ifndef CXAPIAN_ENGINE_VARINT_H
#define CXAPIAN_ENGINE_VARINT_H

#include <cstdint>
#include <string>

namespace cxapian {

/// Appends `value` as a varint: seven bits a byte, low first, the high bit set on every byte but the last.
inline void append_varint(std::string &out, uint32_t value) {
    while (value >= 0x80) {
        out += static_cast<char>((value & 0x7f) | 0x80);
        value >>= 7;
    }
    out += static_cast<char>(value);
}

/// Reads a varint of at most 32 bits from `at` (before `end`) into `out`; false for a truncated or longer one.
inline bool read_varint(const char *&at, const char *end, uint32_t &out) {
    uint32_t value = 0;
    for (unsigned shift = 0; shift < 35 && at != end; shift += 7) {
        const auto byte = static_cast<unsigned char>(*at++);
        if (shift == 28 && (byte & 0xf0) != 0) return false;
        value |= uint32_t(byte & 0x7f) << shift;
        if ((byte & 0x80) == 0) {
            out = value;
            return true;
        }
    }
    return false;
}

}  // namespace cxapian

#endif
