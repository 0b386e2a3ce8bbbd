import Foundation
import SearchIndex
import TrackerStore

/// A hit resolved against the store: the current row behind the document.
public struct ResolvedHit: Sendable, Equatable {
    public var uri: TrackerURI
    public var entity: StoreEntity
    public var score: Double
}

/// The outcome of a search.
public struct SearchOutcome: Sendable {
    public var query: String
    /// Xapian's description of the parsed query.
    public var parsedQuery: String
    public var hits: [ResolvedHit]
    /// All matches in the index (an estimate unless ``isExact``).
    public var total: Int
    public var isExact: Bool
    public var offset: Int
    /// Hits whose row is gone from the store: not shown; their documents go at the next catch-up.
    public var dropped: Int
    /// Changes the searched index had not applied, when another writer held it (nil when up to date).
    public var changesBehind: Int?
    /// Set when the search caught the index up (or built it) first.
    public var catchUp: StoreIndexer.Report?
}

extension StoreIndexer {
    /// Searches, reading its own writes: catches the index up first when the write lock is free at once;
    /// otherwise searches what is committed and reports how many changes behind it is.
    ///
    /// Throws ``IndexerError/Code-swift.struct/querySyntax`` for a query that cannot be parsed.
    public func search(_ text: String, offset: Int = 0, limit: Int = 20) throws(IndexerError) -> SearchOutcome {
        let parsed = try indexer(location.root) { try SearchQueryParser().parse(text) }
        var catchUp: Report?
        var behind: Int?
        // Most searches find the index current: a read of its cursor avoids taking the write lock at all.
        var reader = location.exists ? try? openReader() : nil
        if let current = reader, try isCurrent(current) {
            // Nothing to apply.
        } else if let report = try catchUpIfUnlocked() {
            catchUp = report
            reader = nil
        } else if !location.exists {
            // Someone else is building the first index: wait for it rather than search nothing.
            catchUp = try self.catchUp()
            reader = nil
        }
        let searcher: SearchReader
        if let reader {
            searcher = reader
        } else {
            searcher = try indexer(location.root) { try openReader() }
        }
        if catchUp == nil {
            behind = try indexer(location.root) {
                let cursor = Int64(try searcher.fetchLastClientState() ?? "0") ?? 0
                return try store.read { try $0.changeCount(after: cursor) }
            }
        }
        let results = try indexer(location.root) { try searcher.search(parsed, offset: offset, limit: limit) }
        let (hits, dropped) = try resolve(results.hits)
        return SearchOutcome(
            query: text, parsedQuery: parsed.description, hits: hits, total: results.total, isExact: results.isExact,
            offset: offset, dropped: dropped, changesBehind: behind == 0 ? nil : behind, catchUp: catchUp)
    }

    /// Whether the index is bound to this store and layout and has applied the store's last change.
    func isCurrent(_ reader: SearchReader) throws(IndexerError) -> Bool {
        try indexer(location.root) {
            guard try reader.metadata(Self.storeKey) == store.uuid,
                try reader.metadata(SearchIndexLayout.versionKey) == SearchIndexLayout.version,
                let cursor = Int64(try reader.fetchLastClientState() ?? "")
            else { return false }
            return try store.read { try $0.lastChangeSequence() } == cursor
        }
    }

    /// Resolves hits against the store in one read transaction (one query per 500 ids); drops gone rows.
    func resolve(_ hits: [SearchHit]) throws(IndexerError) -> (hits: [ResolvedHit], dropped: Int) {
        let uris = hits.map { try? TrackerURI(parsing: $0.uniqueIdentifier) }
        return try indexer(location.root) {
            try store.read { reader in
                let items = try reader.items(ids: uris.compactMap { $0?.kind == .item ? $0!.entityID : nil })
                var projectIDs = Set(uris.compactMap { $0?.kind == .project ? $0!.entityID : nil })
                projectIDs.formUnion(items.values.map(\.projectID))
                let projects = try reader.projects(ids: projectIDs)
                var resolved: [ResolvedHit] = []
                var dropped = 0
                for (hit, uri) in zip(hits, uris) {
                    guard let uri, uri.storeID == store.uuid else {
                        dropped += 1
                        continue
                    }
                    switch uri.kind {
                    case .item:
                        if let item = items[uri.entityID], let project = projects[item.projectID] {
                            resolved.append(ResolvedHit(uri: uri, entity: .item(item, project: project), score: hit.score))
                        } else {
                            dropped += 1
                        }
                    case .project:
                        if let project = projects[uri.entityID] {
                            resolved.append(ResolvedHit(uri: uri, entity: .project(project), score: hit.score))
                        } else {
                            dropped += 1
                        }
                    }
                }
                return (resolved, dropped)
            }
        }
    }
}
