import Foundation
import SearchIndex
import TrackerStore

/// Where a search reads the rows behind its hits: a store on this host (``StoreIndexer``), or another host's `serve`
/// for a remote store (the client lives above this layer, so that neither the store nor the index learns HTTP).
public protocol RowSource: Sendable {
    /// The UUID of the store whose rows these are.
    var storeID: String { get }
    /// The rows of these ids, by kind and id; an id whose row is gone is left out. One read (a page of hits).
    func entities(items: [String], projects: [String], messages: [String]) throws -> [TrackerURI.Kind: [String:
        StoreEntity]]
    /// ``entities(items:projects:messages:)``, where a detail may be only its `details` part (the part a page of
    /// hits shows); a source that cannot cut them gives whole details, as the default does.
    func entities(items: [String], projects: [String], messages: [String], details: DetailPart?) throws
        -> [TrackerURI.Kind: [String: StoreEntity]]
    /// The titles of these projects, by id (the project facet's labels).
    func projectTitles(ids: [String]) throws -> [String: String]
    /// For project titles a query filters on that no project has: the nearest titles that exist.
    func projectSuggestions(for titles: [String]) throws -> [ProjectSuggestion]
}

extension RowSource {
    public func entities(items: [String], projects: [String], messages: [String], details: DetailPart?) throws
        -> [TrackerURI.Kind: [String: StoreEntity]]
    {
        try entities(items: items, projects: projects, messages: messages)
    }
}

extension StoreIndexer: RowSource {
    public var storeID: String { store.uuid }

    public func entities(items: [String], projects: [String], messages: [String]) throws -> [TrackerURI.Kind: [String:
        StoreEntity]]
    {
        try store.entities(items: items, projects: projects, messages: messages)
    }

    public func entities(items: [String], projects: [String], messages: [String], details: DetailPart?) throws
        -> [TrackerURI.Kind: [String: StoreEntity]]
    {
        try store.entities(items: items, projects: projects, messages: messages, details: details)
    }

    public func projectTitles(ids: [String]) throws -> [String: String] {
        try store.read { try $0.projects(ids: ids) }.mapValues(\.title)
    }
}

/// A store kept on another host: its index is a replica of the index that host publishes (``IndexReplica``, kept by
/// `spotlite replica`), its rows come from that host's `serve`. Searched in a ``StoreSet`` with local stores, so its
/// hits are ranked with theirs.
public struct RemoteStore: Sendable {
    public var replica: IndexReplica
    public var rows: any RowSource
    /// Its host's `serve` (`http://HOST:PORT`), where its rows' pages are: a page of this host sends the browser
    /// there.
    public var pages: String?

    public init(replica: IndexReplica, rows: any RowSource, pages: String? = nil) {
        self.replica = replica
        self.rows = rows
        self.pages = pages
    }

    public var storeID: String { replica.storeID }

    /// The copy's reader: `reusing`'s, reopened (a full copy that replaced the old one is opened anew), else the copy
    /// opened now. Throws when there is no copy yet, or the copy is not this store's index or not of this Spotlite's
    /// layout.
    func reader(reusing kept: SearchReader?) throws(IndexerError) -> SearchReader {
        let path = replica.copyPath
        guard FileManager.default.fileExists(atPath: path + "/XAPIANDB") else {
            throw IndexerError(
                .index,
                "no copy of store \(storeID) in \(replica.directory) yet; `spotlite replica` makes and keeps it")
        }
        return try indexer(path) { () throws -> SearchReader in
            let reader: SearchReader
            if let kept, (try? kept.reopen()) != nil { reader = kept } else { reader = try SearchReader(path: path) }
            let bound = try reader.revisionMetadata(StoreIndexer.storeKey)
            guard bound == storeID else {
                throw IndexerError(.index, "the copy in \(path) is the index of store \(bound), not \(storeID)")
            }
            let layout = try reader.revisionMetadata(SearchIndexLayout.versionKey)
            guard layout == SearchIndexLayout.version else {
                throw IndexerError(
                    .index,
                    "the copy in \(path) has index layout \(layout), this Spotlite reads \(SearchIndexLayout.version); "
                        + "run the same version on both hosts")
            }
            return reader
        }
    }

    /// Why its results may be older than the primary's: the replica's last copy failed (and when it last succeeded).
    func staleReason(now: Date = Date()) -> String? {
        let status = replica.lastAttempt()
        guard let error = status.error else { return nil }
        let since = status.copiedAt.map { "\(Int(now.timeIntervalSince($0).rounded())) s ago" } ?? "never"
        return "the replica's last copy failed (\(error)); last copied \(since)"
    }
}
