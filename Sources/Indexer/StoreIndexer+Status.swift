import Foundation
import SearchIndex
import TrackerStore

/// Where the store and its index stand.
public struct IndexStatus: Sendable {
    public var storePath: String
    public var storeID: String
    public var indexPath: String
    public var projects: Int
    public var items: Int
    /// Messages on the projects and items.
    public var messages = 0
    /// The newest change the store has logged.
    public var lastChange: Int64
    /// Whether an index exists at ``indexPath``.
    public var indexExists: Bool
    public var indexedDocuments: Int?
    /// The last change applied to the index.
    public var cursor: Int64?
    /// Logged changes the index has not applied (nil if there is no usable index).
    public var changesBehind: Int?
    /// Seconds since the oldest change the index has not applied was logged (nil when none is pending).
    public var oldestPendingAge: Int64?
    /// Why the next catch-up will rebuild instead (another store's index, an old layout…), if it will.
    public var needsRebuild: String?
    /// The process writing the index right now, if one is.
    public var writer: (pid: Int32, purpose: String)?
    /// What the writer says of how it is doing, when something is wrong (a full disk, say).
    public var writerState: String?
    /// Why the index path cannot serve this store (another store's index, a file…), if it cannot.
    public var indexProblem: String?
    /// The `spotlite watch` or `spotlite serve` process keeping the index live, if one runs.
    public var watcher: Int32? { writer.flatMap { StoreIndexer.livePurposes.contains($0.purpose) ? $0.pid : nil } }
}

extension StoreIndexer {
    /// Reads the store's counts and the index's cursor; changes nothing.
    public func status() throws(IndexerError) -> IndexStatus {
        let counts = try indexer(location.root) {
            try store.read { reader in
                (
                    projects: try reader.projectCount(), items: try reader.itemCount(),
                    messages: try reader.messageCount(),
                    last: try reader.lastChangeSequence()
                )
            }
        }
        var status = IndexStatus(
            storePath: store.path, storeID: store.uuid, indexPath: location.root, projects: counts.projects,
            items: counts.items, lastChange: counts.last, indexExists: location.exists)
        status.messages = counts.messages
        do {
            try checkLocation()
        } catch {
            status.indexProblem = error.message
            status.indexExists = false
            return status
        }
        if let holder = WriterLock.holder(at: location.lockPath) {
            status.writer = (holder.pid, holder.purpose)
            status.writerState = holder.state
        }
        guard status.indexExists else {
            status.needsRebuild = "there is no index yet"
            return status
        }
        do {
            let reader = try openReader()
            status.indexedDocuments = try reader.documentCount()
            let boundStore = try reader.metadata(Self.storeKey)
            let cursor = Int64(try reader.fetchLastClientState() ?? "")
            status.cursor = cursor
            if boundStore != store.uuid {
                status.needsRebuild = "the index belongs to store \(boundStore.isEmpty ? "(none)" : boundStore)"
            } else if try reader.metadata(SearchIndexLayout.versionKey) != SearchIndexLayout.version {
                status.needsRebuild = "the index has an older layout"
            } else if let cursor {
                let pending = try store.read { reader in
                    (
                        try reader.changeCount(after: cursor), try reader.logPrunedThrough(),
                        try reader.firstChangeTime(after: cursor)
                    )
                }
                if cursor < pending.1 {
                    status.needsRebuild = "the change log was pruned past the index's cursor"
                } else if cursor > counts.last {
                    status.needsRebuild = "the index's cursor is ahead of the store"
                } else {
                    status.changesBehind = pending.0
                    status.oldestPendingAge = pending.2.map { max(0, Int64(Date().timeIntervalSince1970) - $0) }
                }
            }
        } catch let error as SearchIndexError {
            status.needsRebuild = "the index cannot be read (\(error.message))"
        } catch let error as StoreError {
            throw IndexerError(error)
        } catch {
            status.needsRebuild = "\(error)"
        }
        return status
    }

    /// Opens a reader on the current index (``SearchReader`` retries if a rebuild swaps it away meanwhile).
    func openReader() throws(SearchIndexError) -> SearchReader {
        try SearchReader(path: location.root)
    }
}
