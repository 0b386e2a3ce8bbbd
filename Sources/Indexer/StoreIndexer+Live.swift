import Foundation
import TrackerStore

/// An index kept live by a long-running process (``IndexWatcher`` in `spotlite watch` or `spotlite serve`), as the
/// other writers and readers see it: through the write lock's purpose.
extension StoreIndexer {
    /// The write lock's purpose while `spotlite watch` keeps the index live.
    public static let watchPurpose = "spotlite watch"
    /// The write lock's purpose while `spotlite serve` keeps the index live (with a watcher of its own).
    public static let servePurpose = "spotlite serve"
    /// The purposes of processes that keep an index live: each turns the others away.
    public static let livePurposes: Set<String> = [watchPurpose, servePurpose]

    /// Applied changes kept in the log behind an index's cursor before `index` or `watch` prunes them.
    public static let defaultLogRetention: Int64 = 10_000

    /// The pid of the `spotlite watch` or `spotlite serve` keeping this index live, if one is.
    public func liveWatcher() -> Int32? {
        liveHolder()?.pid
    }

    /// The process keeping this index live (`spotlite watch` or `spotlite serve`) and which it is, if one is.
    public func liveHolder() -> (pid: Int32, purpose: String)? {
        guard let holder = WriterLock.holder(at: location.lockPath), Self.livePurposes.contains(holder.purpose)
        else { return nil }
        return (holder.pid, holder.purpose)
    }

    /// Waits until the index has applied every change the store had logged when called — for a watcher to
    /// catch up — up to `timeout` seconds. Returns the index's cursor if it got there, nil if not.
    public func waitUntilCurrent(timeout: TimeInterval) throws(IndexerError) -> Int64? {
        let target = try indexer(location.root) { try store.lastChangeSequence() }
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            // A fresh reader each time: a rebuild may have swapped the generation a reopen would stay on.
            if let state = try? openReader().fetchLastClientState(), let cursor = Int64(state), cursor >= target {
                return cursor
            }
            if Date() >= deadline { return nil }
            usleep(2_000)
        }
    }

    /// Deletes log entries the index has applied, keeping the newest `retention` of them. Returns how many went.
    @discardableResult
    public func pruneAppliedChanges(through cursor: Int64, keeping retention: Int64 = defaultLogRetention)
        throws(IndexerError) -> Int
    {
        let through = cursor - retention
        // A read-only store keeps its log: pruning is housekeeping, never worth failing a command for.
        guard through > 0, !store.isReadOnly else { return 0 }
        return try indexer(location.root) {
            guard try store.read({ try $0.logPrunedThrough() }) < through else { return 0 }
            return try store.pruneChangeLog(through: through)
        }
    }
}
