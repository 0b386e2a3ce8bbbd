/// How an index keeps unique and domain identifiers: short where it can, exactly as given otherwise.
///
/// Every identifier of one store shares its base (`tracker://<store-uuid>/`), and the rest is a kind and a UUID.
/// Written out, an identifier was most of a document's boolean terms and values and a large share of the index;
/// kept as the kind's letter and the UUID's 16 bytes it is a fifth of that (docs/decisions/0005-index-size.md).
/// The base is written
/// once, in the index's metadata (``SearchIndexLayout/identifierBaseKey``), and a reader puts it back.
///
/// - A term holds `~`, the kind's letter and the UUID in base64url: `Q~iCd9rM0DtTdqAn6qBl5SHmg` (24 bytes).
/// - A value holds 0x01, the kind's letter and the UUID's bytes (18 bytes).
/// - Anything else (another base, another shape) is kept as it is; one that starts with the marker gets a second
///   marker, so no identifier can pass for a short one.
///
/// The short form names no store: copies of one item in two stores have the same value, which is what a search
/// across stores collapses on (``ValueSlot/uniqueIdentifier``).
public struct IdentifierCoding: Sendable, Equatable {
    /// What every short identifier starts with, `tracker://<store-uuid>/`; empty: nothing is shortened.
    public let base: String

    public init(base: String) {
        self.base = base
    }

    /// The coding without a base: every identifier kept as it is.
    public static let verbatim = IdentifierCoding(base: "")

    static let termMarker = UInt8(ascii: "~")
    static let valueMarker: UInt8 = 0x01

    /// The identifier as it is kept in a term (after its prefix).
    public func term(_ identifier: String) -> String {
        if let (letter, uuid) = shortForm(identifier) {
            return "~" + String(decoding: [letter] + Base64URL.encode(uuid), as: UTF8.self)
        }
        return identifier.utf8.first == Self.termMarker ? "~" + identifier : identifier
    }

    /// The identifier as it is kept in a value slot.
    public func value(_ identifier: String) -> [UInt8] {
        if let (letter, uuid) = shortForm(identifier) { return [Self.valueMarker, letter] + uuid }
        let bytes = Array(identifier.utf8)
        return bytes.first == Self.valueMarker ? [Self.valueMarker] + bytes : bytes
    }

    /// The identifier a term (after its prefix) holds.
    public func identifier(term: Substring) -> String {
        let bytes = Array(term.utf8)
        guard bytes.first == Self.termMarker else { return String(term) }
        if bytes.count == 24, let kind = Self.kinds[bytes[1]], let uuid = Base64URL.decode(bytes[2...]) {
            return identifier(kind: kind, uuid: uuid[...])
        }
        return String(decoding: bytes.dropFirst(), as: UTF8.self)
    }

    /// The identifier a value holds.
    public func identifier(value bytes: [UInt8]) -> String {
        guard bytes.first == Self.valueMarker else { return String(decoding: bytes, as: UTF8.self) }
        if bytes.count == 18, let kind = Self.kinds[bytes[1]] { return identifier(kind: kind, uuid: bytes[2...]) }
        return String(decoding: bytes.dropFirst(), as: UTF8.self)
    }

    /// `<base><kind>/<lowercase UUID>`, written at once: every hit's identifier is made here.
    private func identifier(kind: String, uuid: ArraySlice<UInt8>) -> String {
        var base = base
        var kind = kind
        return base.withUTF8 { base in
            kind.withUTF8 { kind in
                String(unsafeUninitializedCapacity: base.count + kind.count + 37) { text in
                    var count = text.initialize(fromContentsOf: base)
                    count += UnsafeMutableBufferPointer(rebasing: text[count...]).initialize(fromContentsOf: kind)
                    text[count] = UInt8(ascii: "/")
                    count += 1
                    return count + Self.writeUUID(uuid, to: UnsafeMutableBufferPointer(rebasing: text[count...]))
                }
            }
        }
    }

    /// Kind names by letter: the kinds of ``SearchableItemAttributeSet/Kind``, which have distinct first letters.
    static let kinds: [UInt8: String] = Dictionary(
        SearchableItemAttributeSet.Kind.allCases.compactMap { kind in
            kind.rawValue.utf8.first.map { ($0, kind.rawValue) }
        },
        uniquingKeysWith: { first, _ in first })

    /// The kind's letter and the UUID's bytes, for `<base><kind>/<lowercase UUID>`; nil for anything else.
    private func shortForm(_ identifier: String) -> (UInt8, [UInt8])? {
        guard !base.isEmpty, identifier.hasPrefix(base) else { return nil }
        let rest = identifier.utf8.dropFirst(base.utf8.count)
        guard let slash = rest.firstIndex(of: UInt8(ascii: "/")) else { return nil }
        let kind = String(decoding: rest[..<slash], as: UTF8.self)
        guard let letter = kind.utf8.first, Self.kinds[letter] == kind else { return nil }
        guard let uuid = Self.uuidBytes(rest[rest.index(after: slash)...]) else { return nil }
        return (letter, uuid)
    }

    /// The 16 bytes of a lowercase UUID in its 36-character form (dashes at 8, 13, 18, 23), or nil.
    static func uuidBytes(_ text: some Collection<UInt8>) -> [UInt8]? {
        guard text.count == 36 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        var high: UInt8?
        for (offset, byte) in text.enumerated() {
            if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            let nibble: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
            default: return nil
            }
            if let first = high {
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return bytes
    }

    /// The 36-character lowercase form of a UUID's 16 bytes.
    static func uuidString(_ bytes: ArraySlice<UInt8>) -> String {
        String(unsafeUninitializedCapacity: 36) { writeUUID(bytes, to: $0) }
    }

    /// Writes the (up to) 36-character lowercase form of a UUID's 16 bytes into `text` (room for 36), byte by byte;
    /// how many it wrote.
    static func writeUUID(_ bytes: ArraySlice<UInt8>, to text: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var count = 0
        for (offset, byte) in bytes.prefix(16).enumerated() {
            if offset == 4 || offset == 6 || offset == 8 || offset == 10 {
                text[count] = UInt8(ascii: "-")
                count += 1
            }
            text[count] = Fingerprint.hexDigits[Int(byte >> 4)]
            text[count + 1] = Fingerprint.hexDigits[Int(byte & 0x0F)]
            count += 2
        }
        return count
    }
}

/// Base64 with the URL alphabet and no padding, for the 16 bytes of a UUID (22 characters).
enum Base64URL {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    static let values: [UInt8: UInt8] = Dictionary(
        uniqueKeysWithValues: alphabet.enumerated().map { ($1, UInt8($0)) })

    static func encode(_ bytes: [UInt8]) -> [UInt8] {
        var text: [UInt8] = []
        text.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var bits: UInt32 = 0
            for byte in chunk { bits = bits << 8 | UInt32(byte) }
            bits <<= UInt32(8 * (3 - chunk.count))
            for position in 0...chunk.count { text.append(alphabet[Int(bits >> UInt32(18 - 6 * position) & 0x3F)]) }
            index += 3
        }
        return text
    }

    /// The 16 bytes of 22 characters, or nil if they are not base64url of 16 bytes.
    static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        guard text.count == 22 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        var bits: UInt32 = 0
        var count = 0
        for character in text {
            guard let value = values[character] else { return nil }
            bits = bits << 6 | UInt32(value)
            count += 6
            if count >= 8 {
                count -= 8
                bytes.append(UInt8(truncatingIfNeeded: bits >> UInt32(count)))
                bits &= (1 << UInt32(count)) - 1
            }
        }
        // 22 characters carry 132 bits: the last 4 must be zero, or the text was not made by encode.
        return count == 4 && bits == 0 && bytes.count == 16 ? bytes : nil
    }
}
