import Foundation
import Logging
import SearchIndex
import TrackerStore

/// One watch of one store's index (``IndexWatcher``), from the session's start to a stop: the loop that wakes on the
/// store's file events and applies what was logged, and everything it changes as it goes — the store (opened again
/// when a new file takes its path), the lock (taken again when the index directory is made again), the index being
/// written. Owned by the thread that runs it: not `Sendable`.
final class WatchLoop {
    let options: IndexWatcher.Options
    let logger: Logger
    private let notifier: ChangeNotifier
    /// The store and the index; the store is opened again when a new file takes its path (``run()``).
    private(set) var indexer: StoreIndexer
    /// Replaced when the index directory is removed under the watcher and made again.
    private var lock: WriterLock
    /// The store file being read.
    private var storeFile: FileIdentity?
    /// A file at the store's path that could not be opened (its error is logged once, not at every wake).
    private var unopenedFile: FileIdentity?
    /// The index being written (nil after a failure closed it: the next step opens it again).
    private var applier: ChangeApplier?
    /// The last change applied, and the generation it was applied to (kept while `applier` is closed).
    private var cursor: Int64 = 0
    private var generation: String?
    /// The reader subscriptions are followed with, reopened at each batch.
    private var subscriptionReader: SearchReader?
    /// The cursor subscriptions were last brought to.
    private var subscriptionsCursor: Int64 = -1

    /// After a wake that found no change, how long the watcher keeps looking (every ``recheckInterval``) for a
    /// commit that was written but not yet visible.
    static let recheckWindow: TimeInterval = 0.05
    static let recheckInterval: TimeInterval = 0.002

    /// A batch whose oldest change waited at least this long is reported at info level.
    static let lagWorthReporting: Int64 = 2

    init(session: WatchSession, options: IndexWatcher.Options, logger: Logger) {
        self.options = options
        self.logger = logger
        notifier = session.notifier
        indexer = session.indexer
        lock = session.lock
        storeFile = FileIdentity(path: session.indexer.store.path)
    }

    /// Applies changes until the notifier is stopped; then closes the index (everything applied is committed).
    /// Throws only if the index cannot be opened or built at start, if another store's file replaces the store,
    /// or if the index directory is removed and cannot be made again.
    func run() throws(IndexerError) {
        try openOrRebuild()
        defer { closeIndex() }
        logger.info(
            "watching the store for changes",
            metadata: [
                "store": "\(indexer.store.path)", "index": "\(indexer.location.root)", "cursor": "\(cursor)",
                "notifications":
                    "\(notifier.isWatchingFiles ? "inotify" : "polling every \(ChangeNotifier.fallbackInterval) s")",
            ])
        var failures = 0
        var failingSince: Date?
        var woke = false
        var recheckUntil: Date?
        var prunedThrough = (try? indexer.store.read { try $0.logPrunedThrough() }) ?? 0
        while !notifier.isStopped {
            if try followReplacedStore() {
                prunedThrough = (try? indexer.store.read { try $0.logPrunedThrough() }) ?? 0
            }
            if !lock.isIntact { try recreateRemovedDirectory() }
            do {
                let before = cursor
                try applyPending()
                // A wake that found nothing new may have come before the commit was visible: SQLite writes the WAL
                // (the file event) before it publishes the commit in the shared-memory index (no file event). Look
                // again a few times over the next milliseconds rather than at the next idle wake, a second later.
                if cursor != before {
                    recheckUntil = nil
                } else if woke, recheckUntil == nil {
                    recheckUntil = Date().addingTimeInterval(Self.recheckWindow)
                } else if let until = recheckUntil, Date() >= until {
                    recheckUntil = nil
                }
                woke = false
                try followSubscriptions(through: cursor)
                // Prune in steps of `logRetention` entries, not a delete per batch.
                if cursor - prunedThrough > 2 * options.logRetention {
                    let removed = try indexer.pruneAppliedChanges(through: cursor, keeping: options.logRetention)
                    prunedThrough = cursor - options.logRetention
                    logger.debug(
                        "pruned the change log", metadata: ["entries": "\(removed)", "through": "\(prunedThrough)"])
                }
                if failures > 0 {
                    logger.notice(
                        "applying changes again after \(failures) failed attempts",
                        metadata: ["cursor": "\(cursor)"])
                    lock.setState(nil)
                }
                failures = 0
                failingSince = nil
            } catch {
                failures += 1
                let since = failingSince ?? Date()
                failingSince = since
                // Back off: 0.1 s, doubling to 30 s, unless asked to stop.
                let pause = min(30, 0.1 * pow(2, Double(min(failures - 1, 10))))
                if IndexFailure.isOutOfSpace(error) {
                    // A rebuild needs more room than a catch-up: keep serving the generation there is, give the
                    // writer back (its failed transaction may have left it unusable), and retry the catch-up.
                    closeIndex()
                    let state =
                        "the disk is full since \(Timestamp.string(from: since)) (\(error)); searches get the index as "
                        + "it was; retrying the catch-up every \(Int(pause.rounded(.up))) s"
                    lock.setState(state)
                    logger.error("could not apply changes (attempt \(failures)): \(state)")
                } else {
                    var reason = IndexFailure.rebuildReason(for: error)
                    if reason == nil, failures >= IndexFailure.failuresBeforeRebuild, IndexFailure.isIndexError(error) {
                        reason = "the index failed \(failures) times in a row (\(error))"
                    }
                    if let reason {
                        if replace(reason: reason) { continue }
                    } else {
                        logger.error("could not apply changes (attempt \(failures)): \(error)")
                    }
                    lock.setState("failing since \(Timestamp.string(from: since)): \(error); retrying")
                }
                if notifier.wait(timeout: pause) == .stopped { break }
                continue
            }
            switch notifier.wait(timeout: recheckUntil == nil ? options.idleInterval : Self.recheckInterval) {
            case .stopped:
                break
            case .changed:
                woke = true
                if options.gatherDelay > 0 { Thread.sleep(forTimeInterval: options.gatherDelay) }
            case .timedOut where recheckUntil != nil:
                continue
            case .timedOut:
                if let problem = readerProblem() {
                    replace(reason: "the index cannot be read (\(problem))")
                } else if let generation, let damage = indexer.health.damageIfChanged(generation) {
                    // Someone changed the tables behind the watcher's back (it records what it writes).
                    replace(reason: "the index is damaged (\(damage))")
                }
            }
        }
        logger.info("stopped", metadata: ["cursor": "\(cursor)"])
    }

    /// Brings the store's subscriptions to `cursor` (the index's, committed), and says which got events. A store
    /// without subscriptions costs one small read per batch.
    private func followSubscriptions(through cursor: Int64) throws(IndexerError) {
        guard cursor != subscriptionsCursor else { return }
        let reader: SearchReader
        if let open = subscriptionReader, (try? open.reopen()) != nil {
            reader = open
        } else {
            do {
                reader = try indexer.openReader()
            } catch {
                throw IndexerError(error, path: indexer.location.root)
            }
            subscriptionReader = reader
        }
        let updated = try indexer.updateSubscriptions(reader: reader)
        subscriptionsCursor = cursor
        if !updated.isEmpty { options.onSubscriptionEvents?(updated) }
    }

    /// Makes the index directory again after it was removed (`rm -rf`) or moved away under the watcher, takes the
    /// lock in it and rebuilds the index there, so that the watcher's lock is where the index is and a second
    /// watcher finds it. Throws if the directory cannot be made, or another process locked it first.
    private func recreateRemovedDirectory() throws(IndexerError) {
        let root = indexer.location.root
        logger.error("the index directory \(root) was removed or moved; making it again and rebuilding the index")
        closeIndex()
        // The removal may still be going on (`rm -rf` empties the directory before removing it): let it finish, or
        // what is made in the directory meanwhile is removed with it (or makes the removal fail). A directory that
        // stays (only the lock file was removed) is taken as it is.
        let settled = Date().addingTimeInterval(5)
        while FileManager.default.fileExists(atPath: root) && Date() < settled { usleep(20_000) }
        // And a directory made or a lock taken while another removal goes on can be taken away too: try again until
        // the lock holds, for a few seconds.
        let deadline = Date().addingTimeInterval(5)
        var taken: WriterLock?
        while taken == nil {
            do {
                try indexer.claimLocation()
                guard
                    let acquired = try WriterLock.acquire(
                        at: indexer.location.lockPath, timeout: 0, purpose: options.purpose)
                else {
                    let holder = WriterLock.holder(at: indexer.location.lockPath)
                    throw IndexerError(
                        .locked,
                        "the index directory \(root) was removed, and process \(holder?.pid ?? 0) "
                            + "(\(holder?.purpose ?? "unknown")) locked the new one first; this watcher stops")
                }
                usleep(50_000)
                if acquired.isIntact {
                    taken = acquired
                } else if Date() >= deadline {
                    throw IndexerError(
                        .index, "the new index directory \(root) keeps being removed; this watcher stops")
                }
            } catch let error as IndexerError where error.code != .badIndexPath {
                throw error
            } catch {
                guard Date() < deadline else {
                    throw IndexerError(.index, "cannot lock the new index directory \(root): \(error)")
                }
                usleep(50_000)
            }
        }
        guard let taken else { return }
        lock = taken
        notifier.watchIndexDirectory(root)
        try rebuild(reason: "the index directory was removed")
    }

    /// Opens the store again when its path names another file than the one being read — a restore, a sync tool
    /// or `mv` put one there by a rename — since the old file would otherwise be watched for ever. The index
    /// then follows the new file's log, or is rebuilt when that log does not continue its cursor (``run()``'s
    /// rebuild on a log gap). True if it did. A file that cannot be opened yet is tried again at the next wake.
    ///
    /// Throws ``IndexerError/Code-swift.struct/store`` when the new file is another store: this index is
    /// bound to the old one (and kept where the old one's index goes), so the watch ends.
    private func followReplacedStore() throws(IndexerError) -> Bool {
        let path = indexer.store.path
        guard let file = FileIdentity(path: path), file != storeFile else { return false }
        let store: TrackerStore
        do {
            store = try TrackerStore.open(at: path)
        } catch {
            if file != unopenedFile {
                logger.error("the store file was replaced, and the new one cannot be opened (will retry): \(error)")
                unopenedFile = file
            }
            return false
        }
        guard store.uuid == indexer.store.uuid else {
            throw IndexerError(
                .store,
                "the store file \(path) was replaced by another store (\(store.uuid)); this index belongs to store "
                    + "\(indexer.store.uuid): start `spotlite watch` again to index the new one")
        }
        logger.notice("the store file was replaced; reading the new one", metadata: ["store": "\(path)"])
        indexer = StoreIndexer(store: store, indexPath: indexer.location.root)
        storeFile = file
        // The applier reads the log of the store it was opened with: the next step opens one on the new file.
        closeIndex()
        return true
    }

    /// Opens the current index for writing, or rebuilds it if that is what it needs.
    private func openOrRebuild() throws(IndexerError) {
        switch try indexer.openCurrentForWriting() {
        case .open(let opened):
            take(opened)
        case .needsRebuild(let reason):
            if indexer.location.exists { logger.error("rebuilding the index from the store: \(reason)") }
            try rebuild(reason: reason)
        }
    }

    private func take(_ opened: ChangeApplier) {
        applier = opened
        cursor = opened.cursor
        generation = opened.generation
    }

    /// Commits what is applied and closes the index (the next step opens it again).
    private func closeIndex() {
        try? applier?.close()
        applier = nil
    }

    /// Closes the index and puts a rebuild from the store in its place, logging why; false if the rebuild failed
    /// (the index is then closed, and the next attempt opens or rebuilds again).
    @discardableResult
    private func replace(reason: String) -> Bool {
        // A removed directory is made again by the loop (``recreateRemovedDirectory(_:)``), not rebuilt in place.
        if !lock.isIntact { return false }
        logger.error("rebuilding the index from the store: \(reason)")
        closeIndex()
        do {
            try rebuild(reason: reason)
            return true
        } catch {
            // `rm -rf` of the index directory empties it before removing it: what looked like damage, and the
            // rebuild that failed in it, were the removal, which the loop now follows.
            if isBeingRemoved(within: 1) { return false }
            logger.error("the rebuild failed: \(error)")
            return false
        }
    }

    /// Whether the lock's directory is gone, or goes within `seconds`.
    private func isBeingRemoved(within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while lock.isIntact {
            if Date() >= deadline { return false }
            usleep(20_000)
        }
        return true
    }

    private func rebuild(reason: String) throws(IndexerError) {
        let started = Date()
        let report = try indexer.rebuildHoldingLock(reason: reason)
        logger.info(
            "rebuilt the index",
            metadata: [
                "reason": "\(reason)", "documents": "\(report.documentsWritten)", "cursor": "\(report.cursor)",
                "seconds": "\(String(format: "%.2f", Date().timeIntervalSince(started)))",
            ])
        warn(report.skipped)
        guard case .open(let opened) = try indexer.openCurrentForWriting() else {
            throw IndexerError(.index, "the rebuilt index \(indexer.location.root) cannot be opened")
        }
        take(opened)
    }

    /// Applies every change logged after the cursor, a batch per commit, stopping early if asked to.
    private func applyPending() throws {
        if applier == nil {
            // A failure closed it: open it again (or rebuild, if that is what it needs now).
            try openOrRebuild()
        }
        guard let applier else { return }
        var started = DispatchTime.now()
        let notifier = notifier
        try applier.applyPending(batchSize: options.batchSize, shouldStop: { notifier.isStopped }) {
            batch, report in
            cursor = applier.cursor
            // What the watcher wrote is recorded, so that only changes made behind its back call for a check.
            indexer.health.record(applier.generation)
            let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e6
            logger.debug(
                "applied a batch",
                metadata: [
                    "changes": "\(batch.changeCount)", "documents": "\(report.documentsWritten)",
                    "cursor": "\(cursor)", "ms": "\(String(format: "%.1f", milliseconds))",
                ])
            warn(report.skipped)
            if let oldest = batch.firstChangeTime {
                let lag = Int64(Date().timeIntervalSince1970) - oldest
                if lag >= Self.lagWorthReporting {
                    let behind = (try? indexer.store.read { [cursor] in try $0.changeCount(after: cursor) }) ?? 0
                    logger.info(
                        "the index is catching up", metadata: ["lag_seconds": "\(lag)", "changes_behind": "\(behind)"])
                }
            }
            started = DispatchTime.now()
        }
    }

    private func warn(_ skipped: [StoreIndexer.Report.Skipped]) {
        for document in skipped {
            logger.warning(
                "skipped a document Xapian refused",
                metadata: ["uri": "\(document.uri)", "reason": "\(document.reason)"])
        }
    }

    /// What stops a reader from opening the current index and reading its cursor, if anything.
    private func readerProblem() -> String? {
        do {
            let reader = try indexer.openReader()
            _ = try reader.documentCount()
            _ = try reader.fetchLastClientState()
            return nil
        } catch  where error.code == .corrupt || error.code == .unavailable {
            return error.message
        } catch {
            return nil
        }
    }
}
