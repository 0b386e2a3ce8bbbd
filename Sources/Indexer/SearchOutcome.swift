import Foundation
import SearchIndex
import TrackerStore

/// How to search: the query language, the page and order, facets, spelling, snippets.
public struct SearchOptions: Sendable {
    /// The query language.
    public enum Syntax: Sendable {
        /// Spotlite's own (docs/query-language.md).
        case spotlite
        /// Core Spotlight's `CSSearchQuery` strings.
        case spotlight
    }

    public var syntax: Syntax = .spotlite
    public var request = SearchRequest()
    /// Treat the last word as a prefix (search as you type).
    public var partial = false
    /// Search the spelling correction instead, when there is one (never silently: the outcome says so).
    public var correct = false
    /// Compute a snippet of each hit's detail.
    public var snippets = true
    public var clock: QueryClock = .system
    /// Called at once when the search must first catch up a backlog of at least ``largeBacklog`` changes (a bulk
    /// import, a sync), with the backlog and whether it is rebuilt: a caller can say why this search takes longer.
    public var onLargeBacklog: (@Sendable (IndexProgress) -> Void)?
    /// The backlog from which ``onLargeBacklog`` is called: about a second of catching up.
    public static let largeBacklog = 1_000

    public init() {}
}

/// A snippet of a hit's text with the matched words marked.
public struct Snippet: Sendable, Equatable {
    /// The text, matched words between ``markStart`` and ``markEnd``.
    public var marked: String

    public init(marked: String) { self.marked = marked }

    public static let markStart = "\u{2}"
    public static let markEnd = "\u{3}"

    /// The text without marks.
    public var plain: String { highlighted(start: "", end: "") }

    /// The text with each matched word between `start` and `end`. (One pass over the UTF-8 bytes, where the marks
    /// are single bytes no other character contains: a server writes twenty of these per search.)
    public func highlighted(start: String, end: String) -> String {
        var out: [UInt8] = []
        var text = marked
        text.withUTF8 { bytes in
            out.reserveCapacity(bytes.count + 8 * (start.utf8.count + end.utf8.count))
            var run = 0
            for (index, byte) in bytes.enumerated() where byte == Self.markStartByte || byte == Self.markEndByte {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
                out.append(contentsOf: byte == Self.markStartByte ? start.utf8 : end.utf8)
                run = index + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run...]))
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The matched words, in order.
    public var matches: [String] {
        var words: [String] = []
        forEachMatch { words.append(String(decoding: $0, as: UTF8.self)) }
        return words
    }

    /// The UTF-8 bytes of ``marked``, marks and all (a writer that leaves the marks out as it copies: ``markBytes``).
    public func withMarkedUTF8<T>(_ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
        var text = marked
        return try text.withUTF8(body)
    }

    /// Calls `body` with the UTF-8 bytes of each matched word, in order, with no String made: a mark opened again
    /// restarts its word, an end with none open is ignored, and a mark left open runs to the end.
    public func forEachMatch(_ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        withMarkedUTF8 { bytes in
            var start: Int?  // where the open mark's word begins
            var index = Self.skippingUnmarked(bytes, from: 0)
            while index < bytes.count {
                defer { index = Self.skippingUnmarked(bytes, from: index + 1) }
                let byte = bytes[index]
                if byte == Self.markStartByte {
                    start = index + 1
                } else if byte == Self.markEndByte, let begun = start {
                    body(UnsafeBufferPointer(rebasing: bytes[begun..<index]))
                    start = nil
                }
            }
            if let begun = start { body(UnsafeBufferPointer(rebasing: bytes[begun...])) }
        }
    }

    /// Whether `bytes` hold either mark, looked for eight bytes at a time (a snippet's window is checked for them
    /// before it is marked: the store's text could hold them).
    static func holdsMark(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes[skippingUnmarked(bytes, from: 0)...].contains { $0 == markStartByte || $0 == markEndByte }
    }

    /// `index` moved on eight bytes at a time while none of them is below 4, as both marks are (most of a text):
    /// where a mark may be, or where fewer than eight bytes are left.
    private static func skippingUnmarked(_ bytes: UnsafeBufferPointer<UInt8>, from index: Int) -> Int {
        var index = index
        while index + 8 <= bytes.count, let base = bytes.baseAddress,
            !UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self).containsByte(below: 4)
        {
            index += 8
        }
        return index
    }

    static let markStartByte = UInt8(ascii: "\u{2}")
    static let markEndByte = UInt8(ascii: "\u{3}")
    /// ``markStart`` and ``markEnd`` as bytes.
    public static let markBytes = (markStartByte, markEndByte)

    /// ``markStart`` and ``markEnd`` as scalars, for printers that walk the marked text.
    public static let markStartScalar: Unicode.Scalar = "\u{2}"
    public static let markEndScalar: Unicode.Scalar = "\u{3}"
}

/// A hit resolved against the store: the current row behind the document.
public struct ResolvedHit: Sendable, Equatable {
    public var uri: TrackerURI
    public var entity: StoreEntity
    public var score: Double
    public var snippet: Snippet?
    /// For ``StoreIndexer/similar(to:options:)``: the score over the score of the item compared with, the most a
    /// hit could have (0…1; higher is more alike).
    public var likeness: Double?
    /// In a search across stores (``StoreSet``): the name of the store whose copy this is.
    public var store: String?
    /// In a search across stores: the other stores that hold the same row (older copies, or equal ones later in
    /// the set's order).
    public var alsoIn: [String] = []
    /// For ``StoreIndexer/similar(to:options:)``: whether the store already links this hit and the item compared
    /// with as duplicates (one a `duplicate-of` the other, or both of the same item).
    public var isKnownDuplicate = false
}

/// One facet's counts over all matches.
public struct FacetCounts: Sendable, Equatable {
    public struct Value: Sendable, Equatable {
        /// The raw value (a project URI, a priority, a status).
        public var value: String
        /// What people read (the project's title for a project URI).
        public var label: String
        public var count: Int
    }

    public var facet: SearchFacet
    public var values: [Value]
}

/// A `project:` filter naming no project, with the nearest project titles (maybe none).
public struct ProjectSuggestion: Sendable, Equatable {
    public var typed: String
    public var titles: [String]
}

/// The outcome of a search.
public struct SearchOutcome: Sendable {
    public var query: String
    /// Xapian's description of the parsed query.
    public var parsedQuery: String
    /// What the query's filters mean, in words.
    public var filters: [String]
    public var hits: [ResolvedHit]
    /// All matches in the index (an estimate unless ``isExact``).
    public var total: Int
    public var isExact: Bool
    public var offset: Int
    public var limit: Int
    public var facets: [FacetCounts]
    /// A spelling correction that finds more, when the query found few or none.
    public var suggestion: String?
    /// Set when these are the results of ``suggestion`` rather than of the query (`--correct`).
    public var searchedSuggestion = false
    /// For each project title the query filters on that no project has: the nearest titles there are.
    public var projectSuggestions: [ProjectSuggestion] = []
    /// Hits whose row is gone from the store: not shown; their documents go at the next catch-up.
    public var dropped: Int
    /// Changes the searched index had not applied, when another writer held it (nil when up to date).
    public var changesBehind: Int?
    /// Set when the search caught the index up (or built it) first.
    public var catchUp: StoreIndexer.Report?
    /// Why the index was searched as committed although it was behind (read-only to this user, a full disk).
    public var staleReason: String?
    /// In a search across stores (``StoreSet``): the stores that could not answer, and why.
    public var failures: [StoreFailure] = []
    /// Whether this is the outcome of a search across stores (``StoreSet``).
    public var isAcrossStores = false
}
