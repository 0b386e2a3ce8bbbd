import Foundation
import SearchIndex
import TrackerStore

/// Keeps a Spotlite index in step with a tracker store: catch-up from the change log, rebuild with an atomic
/// swap, verify. The only type that knows both the store and the index.
///
/// One writer at a time per index (``WriterLock``); readers never need the lock.
public final class StoreIndexer: Sendable {
    public let store: TrackerStore
    public let location: IndexLocation
    let mapping: ItemMapping

    /// Metadata key binding an index to its store's UUID.
    static let storeKey = "spotlite.store"
    /// Changes read per catch-up step (one read transaction and one Xapian commit each). Xapian's B-trees are
    /// keyed by term, so each commit inserts into the middle of every term's entries: after a burst of 9,895
    /// Debian items, batches of 2,000 left a 62 MB index and batches of 10,000 a 37 MB one (27 MB rebuilt).
    public static let defaultBatchSize = 10_000
    /// How long `index` and `verify --repair` wait for another writer before giving up.
    public static let defaultLockTimeout: TimeInterval = 10

    public init(store: TrackerStore, indexPath: String) {
        self.store = store
        self.location = IndexLocation(root: indexPath)
        self.mapping = ItemMapping(storeID: store.uuid)
    }

    /// What a catch-up or rebuild did.
    public struct Report: Sendable, Equatable {
        /// Whether the index was rebuilt from the rows (and why), rather than caught up from the log.
        public var rebuildReason: String?
        public var changesApplied = 0
        public var documentsWritten = 0
        public var batches = 0
        public var cursor: Int64 = 0
        /// The `spotlite watch` process that keeps the index live, when it did the work instead.
        public var keptLiveBy: Int32?
        /// What that process is: `spotlite watch` or `spotlite serve`.
        public var keptLiveByPurpose: String?
        /// Documents Xapian refused (and why); the rest of their batch was applied.
        public var skipped: [Skipped] = []

        public struct Skipped: Sendable, Equatable {
            public var uri: String
            public var reason: String
        }
    }

    // MARK: - Writing

    /// Brings the index up to date with the store, rebuilding it if it is missing, bound to another store,
    /// of an old layout, damaged, older than the pruned log, or behind by `rebuildShare` of the store's rows or more
    /// (``rebuildShare``; above 1, never for that).
    ///
    /// Waits up to `lockTimeout` seconds for another writer; then throws ``IndexerError/Code-swift.struct/locked``
    /// naming the holder.
    ///
    /// While `spotlite watch` keeps the index live, writes nothing: waits up to `lockTimeout` for the watcher to
    /// apply every change logged so far, and reports it in ``Report/keptLiveBy``.
    ///
    /// It applies the changes logged when it starts, not those that writers keep adding meanwhile, so that busy
    /// writers cannot keep it (and the lock) for ever; the next catch-up takes those.
    @discardableResult
    public func catchUp(
        lockTimeout: TimeInterval = defaultLockTimeout, batchSize: Int = defaultBatchSize,
        rebuildShare: Double = rebuildShare, progress: Progress? = nil
    ) throws(IndexerError) -> Report {
        try claimLocation()
        if let live = liveHolder() {
            guard let cursor = try waitUntilCurrent(timeout: lockTimeout) else {
                throw IndexerError(
                    .locked,
                    "`\(live.purpose)` (process \(live.pid)) keeps the index \(location.root) live but has not caught up with the store in \(Int(lockTimeout)) s; see its log"
                )
            }
            var report = Report()
            report.cursor = cursor
            report.keptLiveBy = live.pid
            report.keptLiveByPurpose = live.purpose
            return report
        }
        let target = try lastChange()
        let lock = try acquireLock(timeout: lockTimeout, purpose: "spotlite index")
        return try withExtendedLifetime(lock) { () throws(IndexerError) in
            try catchUpHoldingLock(
                batchSize: batchSize, through: target, rebuildShare: rebuildShare, progress: progress)
        }
    }

    /// Told how far a catch-up or a rebuild has come: once before it starts (nothing done yet), after each commit
    /// of a catch-up, and after each run of rows a rebuild reads.
    public typealias Progress = (IndexProgress) -> Void

    /// A backlog of at least this share of the store's rows is applied by a rebuild instead (with the atomic swap): a
    /// catch-up costs more a document than a rebuild a row, and a catch-up of most of the store leaves an index
    /// several times the size of a rebuilt, compacted one, so from half the store on, the rebuild is the quicker and
    /// the better of the two (docs/performance.md, "bulk catch-up").
    public static let rebuildShare = 0.5
    /// Backlogs smaller than this are always caught up: a second's work or less.
    public static let minimumRebuildBacklog = 1_000

    /// The store's newest change.
    func lastChange() throws(IndexerError) -> Int64 {
        try indexer(location.root) { try store.lastChangeSequence() }
    }

    /// Like ``catchUp(lockTimeout:batchSize:)`` but only if the lock is free right now, and only through the change
    /// `through`; returns nil when another process holds the lock.
    public func catchUpIfUnlocked(batchSize: Int = defaultBatchSize, through: Int64? = nil, progress: Progress? = nil)
        throws(IndexerError) -> Report?
    {
        try claimLocation()
        let lock = try indexer(location.root) {
            try WriterLock.acquire(at: location.lockPath, timeout: 0, purpose: "spotlite search")
        }
        guard let lock else { return nil }
        return try withExtendedLifetime(lock) { () throws(IndexerError) in
            try catchUpHoldingLock(batchSize: batchSize, through: through, progress: progress)
        }
    }

    /// Builds a fresh index from the store's rows into a new directory and swaps it in atomically
    /// (see ``RebuildOptions`` for how).
    @discardableResult
    public func rebuild(
        lockTimeout: TimeInterval = defaultLockTimeout, options: RebuildOptions = RebuildOptions(),
        progress: Progress? = nil
    ) throws(IndexerError) -> Report {
        let lock = try acquireLock(timeout: lockTimeout, purpose: "spotlite index --rebuild")
        return try withExtendedLifetime(lock) { () throws(IndexerError) in
            try rebuildHoldingLock(reason: "requested", options: options, progress: progress)
        }
    }

    func acquireLock(timeout: TimeInterval, purpose: String) throws(IndexerError) -> WriterLock {
        try claimLocation()
        try refuseIfKeptLive(purpose: purpose)
        let lock = try indexer(location.root) {
            try WriterLock.acquire(at: location.lockPath, timeout: timeout, purpose: purpose)
        }
        guard let lock else {
            let holder = WriterLock.holder(at: location.lockPath)
            let who = holder.map { "process \($0.pid) (\($0.purpose))" } ?? "another process"
            throw IndexerError(
                .locked,
                "the index \(location.root) is being written by \(who); waited \(Int(timeout)) s — try again when it finishes"
            )
        }
        return lock
    }

    /// Throws ``IndexerError/Code-swift.struct/locked`` at once when `spotlite watch` or `serve` keeps the index
    /// live: it holds the write lock for as long as it runs, so waiting for it would only time out.
    func refuseIfKeptLive(purpose: String) throws(IndexerError) {
        guard let live = liveHolder() else { return }
        let holder = "kept live by `\(live.purpose)` (process \(live.pid))"
        let message =
            Self.livePurposes.contains(purpose)
            ? "the index \(location.root) is already \(holder); stop it first, or give this one another --index"
            : "the index \(location.root) is \(holder); stop it for `\(purpose)`, then start it again"
        throw IndexerError(.locked, message)
    }

    /// Damage detection for this index's generations.
    var health: IndexHealth { IndexHealth(location: location) }

    /// Makes sure the index path is this store's index directory (creating and marking it when new); throws
    /// ``IndexerError/Code-swift.struct/badIndexPath`` for anything else there. Every writer calls it first.
    func claimLocation() throws(IndexerError) {
        try location.claim(for: store.uuid, storePath: store.path)
    }

    /// Throws ``IndexerError/Code-swift.struct/badIndexPath`` if the index path holds something a reader must not
    /// take for this store's index (another store's index, a file). Readers call it first.
    func checkLocation() throws(IndexerError) {
        try location.checkReadable(for: store.uuid, storePath: store.path)
    }

    /// Why the current index cannot be caught up and must be rebuilt, or nil if it can.
    private func rebuildReason(_ index: SearchableIndex) throws(SearchIndexError) -> String? {
        let boundStore = try index.metadata(Self.storeKey)
        if boundStore != store.uuid {
            return boundStore.isEmpty ? "the index is not bound to a store" : "the index belongs to store \(boundStore)"
        }
        let layout = try index.metadata(SearchIndexLayout.versionKey)
        if layout != SearchIndexLayout.version {
            return
                "the index layout is \(layout.isEmpty ? "unknown" : layout), this spotlite writes \(SearchIndexLayout.version)"
        }
        if try index.fetchLastClientState().flatMap({ Int64($0) }) == nil { return "the index has no cursor" }
        return nil
    }

    /// The current index opened for writing at its cursor; or why it must be rebuilt instead.
    enum WritableIndex {
        case open(ChangeApplier)
        case needsRebuild(reason: String)
    }

    /// Opens the current generation for writing. Call holding the lock.
    func openCurrentForWriting() throws(IndexerError) -> WritableIndex {
        // A rebuild killed midway leaves its half-built generation; holding the lock, nobody is building one now.
        location.removeStaleGenerations()
        guard let generation = location.currentGeneration(), location.exists else {
            return .needsRebuild(reason: "there is no index yet")
        }
        // Damage done behind Xapian's back (a truncated or overwritten table) may not show until a search reads
        // the broken block: check the tables whenever they changed since a writer last recorded them.
        if let damage = health.damageIfChanged(generation) {
            return .needsRebuild(reason: "the index is damaged (\(damage))")
        }
        let index: SearchableIndex
        do {
            index = try SearchableIndex(path: location.path(of: generation), identifierBase: mapping.identifierBase)
        } catch  where error.code == .corrupt || error.code == .unavailable {
            return .needsRebuild(reason: "the index could not be opened (\(error.message))")
        } catch {
            throw IndexerError(error, path: location.root)
        }
        do {
            if let reason = try rebuildReason(index) {
                try? index.close()
                return .needsRebuild(reason: reason)
            }
            let cursor = Int64(try index.fetchLastClientState() ?? "0") ?? 0
            return .open(ChangeApplier(indexer: self, index: index, generation: generation, cursor: cursor))
        } catch {
            try? index.close()
            if error.code == .corrupt { return .needsRebuild(reason: "the index is damaged (\(error.message))") }
            throw IndexerError(error, path: location.root)
        }
    }

    /// The backlog's share of the store's rows, in whole percent, if the backlog is to be rebuilt rather than
    /// caught up (``rebuildShare``); nil to catch it up.
    private func rebuildShare(ofBacklog backlog: Int, threshold: Double) throws -> Int? {
        guard backlog >= Self.minimumRebuildBacklog, threshold <= 1 else { return nil }
        let rows = try store.read { try $0.projectCount() + $0.itemCount() }
        guard Double(backlog) >= threshold * Double(rows) else { return nil }
        return min(100, Int((Double(backlog) * 100 / Double(max(1, rows))).rounded()))
    }

    private func catchUpHoldingLock(
        batchSize: Int, through: Int64?, rebuildShare threshold: Double = rebuildShare, progress: Progress? = nil
    ) throws(IndexerError) -> Report {
        let applier: ChangeApplier
        switch try openCurrentForWriting() {
        case .needsRebuild(let reason):
            return try rebuildHoldingLock(reason: reason, progress: progress)
        case .open(let opened):
            applier = opened
        }
        do {
            let total = try store.read { try $0.changeCount(after: applier.cursor, through: through) }
            if let share = try rebuildShare(ofBacklog: total, threshold: threshold) {
                try applier.close()
                return try rebuildHoldingLock(
                    reason:
                        "the index was \(total) changes behind, \(share) % of the store's rows: a rebuild is quicker",
                    backlog: total, progress: progress)
            }
            progress?(IndexProgress(work: .applyingChanges, done: 0, total: total, backlog: total))
            var done = 0
            let report = try applier.applyPending(
                through: through, batchSize: batchSize,
                afterBatch: { _, batch in
                    done += batch.changesApplied
                    progress?(
                        IndexProgress(work: .applyingChanges, done: done, total: max(total, done), backlog: total))
                })
            try applier.close()
            if report.batches > 0 { health.record(applier.generation) }
            return report
        } catch let error as StoreError where error.code == .changeLogGap {
            try? applier.close()
            return try rebuildHoldingLock(reason: error.message)
        } catch let error as SearchIndexError where error.code == .corrupt {
            try? applier.close()
            return try rebuildHoldingLock(reason: "the index is damaged (\(error.message))")
        } catch {
            try? applier.close()
            throw try indexer(location.root) { throw error }
        }
    }
}
