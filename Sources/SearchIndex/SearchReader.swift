import Xapian

/// One hit: the unique identifier and its relevance score.
public struct SearchHit: Sendable, Equatable {
    public var uniqueIdentifier: String
    public var score: Double
}

/// A page of hits and the total.
public struct SearchResults: Sendable {
    public var hits: [SearchHit]
    /// All matches (Xapian's estimate unless ``isExact``).
    public var total: Int
    public var isExact: Bool
}

/// Reads a Spotlite index: searches, metadata, and the list of indexed documents.
///
/// Sees one committed revision at a time; every call that meets a newer commit reopens and retries on its own,
/// so readers never fail because a writer moved the index. Not thread-safe: one per thread.
public final class SearchReader {
    let database: Database
    /// How many times a call reopens after `DatabaseModifiedError` before giving up.
    static let retries = 5

    /// Opens the index at `path` (a database directory or one holding a `XAPIANDB` stub).
    public init(path: String) throws(SearchIndexError) {
        database = try xapian { () throws(XapianError) in try Database(path: path) }
    }

    /// Moves to the latest committed revision.
    public func reopen() throws(SearchIndexError) {
        try xapian { () throws(XapianError) in _ = try database.reopen() }
    }

    /// Runs `query`, returning `limit` hits from `offset`, best first.
    public func search(_ query: SearchQuery, offset: Int = 0, limit: Int = 20) throws(SearchIndexError) -> SearchResults {
        let matches = try retrying { () throws(XapianError) in
            try database.match(query.query, offset: offset, limit: limit)
        }
        return SearchResults(
            hits: matches.hits.map { SearchHit(uniqueIdentifier: $0.data, score: $0.weight) },
            total: matches.estimatedMatches,
            isExact: matches.isExact)
    }

    /// The client state of the last committed batch, or nil.
    public func fetchLastClientState() throws(SearchIndexError) -> String? {
        let state = try metadata(SearchIndexLayout.clientStateKey)
        return state.isEmpty ? nil : state
    }

    public func metadata(_ key: String) throws(SearchIndexError) -> String {
        try retrying { () throws(XapianError) in try database.metadata(key) }
    }

    public func documentCount() throws(SearchIndexError) -> Int {
        try retrying { () throws(XapianError) in try database.documentCount() }
    }

    /// Every indexed unique identifier with its fingerprint (see ``SearchableItem/fingerprint``).
    public func fingerprints() throws(SearchIndexError) -> [String: String] {
        let rows = try retrying { () throws(XapianError) in
            try database.termsWithValue(prefix: TermPrefix.uniqueIdentifier, slot: ValueSlot.fingerprint)
        }
        var result: [String: String] = [:]
        result.reserveCapacity(rows.count)
        for row in rows {
            result[String(row.term.dropFirst(TermPrefix.uniqueIdentifier.count))] = String(
                decoding: row.value, as: UTF8.self)
        }
        return result
    }

    private func retrying<T>(_ body: () throws(XapianError) -> T) throws(SearchIndexError) -> T {
        var attempt = 0
        while true {
            do {
                return try body()
            } catch where error.kind == .modified && attempt < Self.retries {
                attempt += 1
                try xapian { () throws(XapianError) in _ = try database.reopen() }
            } catch {
                throw SearchIndexError(error)
            }
        }
    }
}
