/// FNV-1a 64-bit hashing: stable across runs and platforms (unlike `Hasher`), for fingerprints and
/// over-long terms.
enum Fingerprint {
    static func fnv1a(_ parts: [String]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for part in parts {
            for byte in part.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01B3
            }
            hash ^= 0x1F  // a separator, so ["ab", "c"] and ["a", "bc"] differ
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// The 8 bytes of `value`, most significant first: how a fingerprint is kept in its value slot.
    static func bytes(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }
    }

    /// Lowercase hexadecimal digits, by value.
    static let hexDigits = Array("0123456789abcdef".utf8)

    /// The hex of a fingerprint kept as ``bytes(_:)`` (any other value as its bytes in hex).
    static func hex(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.flatMap { [hexDigits[Int($0 >> 4)], hexDigits[Int($0 & 0x0F)]] }, as: UTF8.self)
    }

    static func hex(_ value: UInt64) -> String { hex(bytes(value)) }

    /// `text` if it fits in `maximumBytes` of UTF-8, else a prefix of it cut on a character boundary plus
    /// `#` and the hash of the whole.
    static func bounded(_ text: String, maximumBytes: Int) -> String {
        if text.utf8.count <= maximumBytes { return text }
        let suffix = "#" + hex(fnv1a([text]))
        var kept = ""
        var bytes = 0
        for character in text {
            let size = character.utf8.count
            if bytes + size > maximumBytes - suffix.utf8.count { break }
            kept.append(character)
            bytes += size
        }
        return kept + suffix
    }
}
