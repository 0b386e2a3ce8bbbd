/// A deep link to a project, an item or a message: `tracker://<store-uuid>/item/<item-uuid>`, `…/project/<uuid>` or
/// `…/message/<uuid>`.
///
/// Only the canonical form parses: scheme `tracker`, lowercase hyphenated UUIDs, no query, fragment or
/// trailing slash. Every printed URI is itself valid input.
///
/// ```swift
/// let uri = try TrackerURI(parsing: "tracker://0f…/item/8a…")
/// uri.kind        // .item
/// ```
public struct TrackerURI: Hashable, Sendable, CustomStringConvertible {
    /// What a URI points at.
    public enum Kind: String, Sendable, CaseIterable {
        case item
        case project
        case message
    }

    public var storeID: String
    public var kind: Kind
    public var entityID: String

    public init(storeID: String, kind: Kind, entityID: String) {
        self.storeID = storeID
        self.kind = kind
        self.entityID = entityID
    }

    public static let scheme = "tracker"

    /// The canonical text form.
    public var description: String { "\(Self.scheme)://\(storeID)/\(kind.rawValue)/\(entityID)" }

    /// Parses a canonical URI, or throws ``StoreError/Code-swift.struct/invalidInput`` saying exactly what is wrong.
    public init(parsing text: String) throws(StoreError) {
        if let uri = Self.canonical(text) {
            self = uri
            return
        }
        func fail(_ reason: String) -> StoreError {
            StoreError(.invalidInput, "malformed URI '\(text)': \(reason)")
        }
        let prefix = "\(Self.scheme)://"
        guard text.hasPrefix(prefix) else {
            if let colon = text.firstIndex(of: ":"), text[..<colon].allSatisfy({ $0.isLetter }) {
                throw fail("the scheme must be 'tracker', not '\(text[..<colon])'")
            }
            throw fail("expected tracker://<store-uuid>/item/<uuid> (or /project/<uuid>, /message/<uuid>)")
        }
        let rest = text.dropFirst(prefix.count)
        // Byte searches: `contains("?")` on a String goes through Foundation, and every search result is parsed.
        if rest.utf8.contains(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
            throw fail("a query or fragment is not allowed")
        }
        let parts = rest.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            .map { Substring($0) }
        guard parts.count == 3 else {
            if parts.count > 3 && parts.last == "" { throw fail("remove the trailing '/'") }
            throw fail("expected three parts after tracker://: <store-uuid>/<item|project|message>/<uuid>")
        }
        guard let kind = Kind(rawValue: String(parts[1])) else {
            throw fail("the kind must be 'item', 'project' or 'message', not '\(parts[1])'")
        }
        if let problem = Self.uuidProblem(parts[0]) { throw fail("the store id \(problem)") }
        if let problem = Self.uuidProblem(parts[2]) { throw fail("the \(kind.rawValue) id \(problem)") }
        self.init(storeID: String(parts[0]), kind: kind, entityID: String(parts[2]))
    }

    /// The URI if `text` is canonical, else nil: one pass over the bytes, as every search hit is parsed. The
    /// checks below then say what is wrong with any other text.
    static func canonical(_ text: String) -> TrackerURI? {
        var text = text
        return text.withUTF8 { bytes -> TrackerURI? in
            let prefix = "tracker://".utf8
            let kindStart = prefix.count + 37
            guard bytes.count > kindStart + 37, bytes.starts(with: prefix), isUUID(bytes, at: prefix.count),
                bytes[kindStart - 1] == UInt8(ascii: "/"), bytes[bytes.count - 37] == UInt8(ascii: "/"),
                isUUID(bytes, at: bytes.count - 36)
            else { return nil }
            let kindBytes = UnsafeBufferPointer(rebasing: bytes[kindStart..<(bytes.count - 37)])
            guard let kind = Kind.allCases.first(where: { kindBytes.elementsEqual($0.rawValue.utf8) }) else {
                return nil
            }
            func string(_ range: Range<Int>) -> String {
                String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
            }
            return TrackerURI(
                storeID: string(prefix.count..<(prefix.count + 36)), kind: kind,
                entityID: string((bytes.count - 36)..<bytes.count))
        }
    }

    /// Whether the 36 bytes at `start` are a canonical UUID.
    private static func isUUID(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        uuidFault(UnsafeBufferPointer(rebasing: bytes[start..<(start + 36)])) == nil
    }

    /// Whether `text` is a canonical (lowercase, hyphenated, 36-character) UUID.
    public static func isCanonicalUUID<S: StringProtocol>(_ text: S) -> Bool { uuidProblem(text) == nil }

    /// Why `text` is not a canonical UUID, or nil if it is.
    static func uuidProblem<S: StringProtocol>(_ text: S) -> String? {
        switch uuidFault(Array(text.utf8)) {
        case nil: return nil
        case .empty: return "is empty"
        case .length:
            return "'\(text)' is not a UUID (expected 36 characters like 123e4567-e89b-42d3-a456-426614174000)"
        case .dash(let position): return "'\(text)' is not a UUID (a '-' belongs at position \(position))"
        case .uppercase: return "'\(text)' must be lowercase"
        case .notHex(let position): return "'\(text)' is not a UUID (character \(position) is not a hex digit)"
        }
    }

    /// The first thing that keeps `bytes` from being a canonical UUID (positions count from 1), or nil.
    private enum UUIDFault {
        case empty, length, uppercase
        case dash(position: Int)
        case notHex(position: Int)
    }

    private static func uuidFault<C: RandomAccessCollection>(_ bytes: C) -> UUIDFault? where C.Element == UInt8 {
        if bytes.isEmpty { return .empty }
        guard bytes.count == 36 else { return .length }
        for (index, byte) in bytes.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                if byte != UInt8(ascii: "-") { return .dash(position: index + 1) }
            } else if (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte) {
                return .uppercase
            } else if !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                && !(UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            {
                return .notHex(position: index + 1)
            }
        }
        return nil
    }
}
