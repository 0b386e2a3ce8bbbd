import Foundation

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
    static func canonical(_ text: String) -> TrackerURI? { canonical(text, inStores: nil) }

    /// The URI if `text` is canonical and names one of `storeIDs`, else nil: what a search makes of each hit's
    /// identifier. The store ID is the one given (one string for all the hits of a store, not one each).
    public static func canonical(_ text: String, inStores storeIDs: [String]) -> TrackerURI? {
        canonical(text, inStores: .some(storeIDs))
    }

    private static func canonical(_ text: String, inStores storeIDs: [String]?) -> TrackerURI? {
        var text = text
        return text.withUTF8 { bytes -> TrackerURI? in
            // tracker://<36>/<kind>/<36>, read through the base pointer: every search hit is parsed here.
            let prefix: StaticString = "tracker://"
            let kindStart = prefix.utf8CodeUnitCount + 37
            guard bytes.count > kindStart + 37, let base = bytes.baseAddress,
                memcmp(base, prefix.utf8Start, prefix.utf8CodeUnitCount) == 0,
                isUUID(base + prefix.utf8CodeUnitCount), base[kindStart - 1] == UInt8(ascii: "/"),
                base[bytes.count - 37] == UInt8(ascii: "/"), isUUID(base + bytes.count - 36)
            else { return nil }
            let kindLength = bytes.count - 37 - kindStart
            guard
                let kind = Kind.allCases.first(where: { kind in
                    kind.rawValue.utf8.count == kindLength
                        && Self.equal(kind.rawValue, UnsafeBufferPointer(start: base + kindStart, count: kindLength))
                })
            else { return nil }
            func string(_ start: Int) -> String {
                String(decoding: UnsafeBufferPointer(start: base + start, count: 36), as: UTF8.self)
            }
            let storeBytes = UnsafeBufferPointer(start: base + prefix.utf8CodeUnitCount, count: 36)
            let storeID: String
            if let storeIDs {
                guard let known = storeIDs.first(where: { Self.equal($0, storeBytes) }) else { return nil }
                storeID = known
            } else {
                storeID = string(prefix.utf8CodeUnitCount)
            }
            return TrackerURI(storeID: storeID, kind: kind, entityID: string(bytes.count - 36))
        }
    }

    /// Whether the 36 bytes at `start` are a canonical UUID.
    private static func isUUID(_ start: UnsafePointer<UInt8>) -> Bool {
        uuidFault(UnsafeBufferPointer(start: start, count: 36)) == nil
    }

    /// Whether `text`'s bytes are `bytes`.
    private static func equal(_ text: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var text = text
        return text.withUTF8 { own in
            guard own.count == bytes.count else { return false }
            guard let first = own.baseAddress, let second = bytes.baseAddress else { return own.isEmpty }
            return memcmp(first, second, own.count) == 0
        }
    }

    /// Whether `text` is a canonical (lowercase, hyphenated, 36-character) UUID.
    public static func isCanonicalUUID<S: StringProtocol>(_ text: S) -> Bool { uuidProblem(text) == nil }

    /// Why `text` is not a canonical UUID, or nil if it is.
    static func uuidProblem<S: StringProtocol>(_ text: S) -> String? {
        switch Array(text.utf8).withUnsafeBufferPointer({ uuidFault($0) }) {
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

    /// By byte arithmetic, over a buffer: every search hit's URI is checked here (``canonical(_:inStores:)``).
    private static func uuidFault(_ bytes: UnsafeBufferPointer<UInt8>) -> UUIDFault? {
        if bytes.isEmpty { return .empty }
        guard bytes.count == 36 else { return .length }
        for index in 0..<36 {
            let byte = bytes[index]
            if index == 8 || index == 13 || index == 18 || index == 23 {
                if byte != UInt8(ascii: "-") { return .dash(position: index + 1) }
            } else if byte &- UInt8(ascii: "A") < 6 {
                return .uppercase
            } else if !(byte &- UInt8(ascii: "0") < 10 || byte &- UInt8(ascii: "a") < 6) {
                return .notHex(position: index + 1)
            }
        }
        return nil
    }
}
