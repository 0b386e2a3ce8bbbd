import Foundation
import Logging
import SearchIndex
import TrackerStore

/// `spotlite watch`: keeps one index live, applying each change any process commits to the store within
/// milliseconds, until ``stop()``.
///
/// It holds the index's write lock for its whole life, so it is the one writer: `spotlite index` and a search's
/// catch-up see the lock's purpose (``purpose``) and wait for it instead of writing, and a second watcher refuses
/// to start. It wakes on the store's file events (``ChangeNotifier``), applies everything logged since its
/// cursor in batches of at most ``Options/batchSize`` changes, one Xapian commit each — a burst that arrives
/// while a batch commits is grouped into the next one — and sleeps again.
///
/// It never stops on bad data or a failing index: a document Xapian refuses is skipped with a warning; a
/// damaged index, or one whose changes were pruned from the log, is rebuilt from the store; any other failure
/// is logged and retried with a growing pause. The store is only ever read, but for pruning the change log.
public final class IndexWatcher: Sendable {
    public struct Options: Sendable {
        /// Changes applied per Xapian commit at most (see ``StoreIndexer/defaultBatchSize``).
        public var batchSize = StoreIndexer.defaultBatchSize
        /// After a wake, how long a burst of commits may keep arriving before it is applied as one batch.
        public var gatherDelay: TimeInterval = 0.001
        /// How long an idle watcher sleeps before checking that the index still opens (and the store, in case a
        /// file event was missed).
        public var idleInterval: TimeInterval = 1
        /// Applied changes kept in the log behind the cursor (for other indexes of the store, and for people
        /// reading the log); older applied ones are pruned.
        public var logRetention: Int64 = StoreIndexer.defaultLogRetention
        /// What the write lock says keeps the index live (`spotlite watch`, `spotlite serve`), for those it turns away.
        public var purpose = IndexWatcher.purpose
        /// Called (on the watcher's thread) with the ids of the subscriptions that got events after a batch: each
        /// subscription is brought to the index's cursor after every batch, before the log is pruned.
        public var onSubscriptionEvents: (@Sendable ([String]) -> Void)?

        public init() {}
    }

    /// The write lock's purpose while a watcher holds it.
    public static let purpose = "spotlite watch"
    /// The write lock's purpose while `spotlite serve` keeps the index live (with a watcher of its own).
    public static let servePurpose = "spotlite serve"
    /// The purposes of processes that keep an index live: each turns the others away.
    public static let livePurposes: Set<String> = [purpose, servePurpose]

    /// After a wake that found no change, how long the watcher keeps looking (every ``recheckInterval``) for a
    /// commit that was written but not yet visible.
    static let recheckWindow: TimeInterval = 0.05
    static let recheckInterval: TimeInterval = 0.002

    /// A batch whose oldest change waited at least this long is reported at info level.
    static let lagWorthReporting: Int64 = 2

    /// The store and the index; the store is opened again when a new file takes its path (``run()``).
    nonisolated(unsafe) private(set) var indexer: StoreIndexer
    /// The store file being read.
    nonisolated(unsafe) private var storeFile: FileIdentity?
    /// A file at the store's path that could not be opened (its error is logged once, not at every wake).
    nonisolated(unsafe) private var unopenedFile: FileIdentity?
    let options: Options
    let logger: Logger
    private let notifier: ChangeNotifier
    /// Replaced when the index directory is removed under the watcher and made again.
    nonisolated(unsafe) private var lock: WriterLock

    /// Takes the index's write lock, waiting up to `lockTimeout` seconds for a `spotlite index` or rebuild to
    /// finish. Throws ``IndexerError/Code-swift.struct/locked`` at once if another watcher keeps the index.
    public init(indexer: StoreIndexer, options: Options = Options(), logger: Logger, lockTimeout: TimeInterval)
        throws(IndexerError)
    {
        self.indexer = indexer
        self.options = options
        self.logger = logger
        lock = try indexer.acquireLock(timeout: lockTimeout, purpose: options.purpose)
        storeFile = FileIdentity(path: indexer.store.path)
        do {
            notifier = try ChangeNotifier(storePath: indexer.store.path, indexRoot: indexer.location.root)
        } catch {
            throw IndexerError(.index, "cannot watch \(indexer.store.path): \(error)")
        }
    }

    /// Makes ``run()`` return after the batch it is applying, if any, is committed. Safe from any thread.
    public func stop() {
        notifier.stop()
    }

    /// Applies changes until ``stop()``; then closes the index (everything applied is committed) and returns.
    /// Throws only if the index cannot be opened or built at start, if another store's file replaces the store,
    /// or if the index directory is removed and cannot be made again.
    public func run() throws(IndexerError) {
        var live = try openOrRebuild()
        defer { live.close() }
        logger.info(
            "watching the store for changes",
            metadata: [
                "store": "\(indexer.store.path)", "index": "\(indexer.location.root)", "cursor": "\(live.cursor)",
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
            if !lock.isIntact { try recreateRemovedDirectory(&live) }
            do {
                let before = live.cursor
                try applyPending(&live)
                // A wake that found nothing new may have come before the commit was visible: SQLite writes the WAL
                // (the file event) before it publishes the commit in the shared-memory index (no file event). Look
                // again a few times over the next milliseconds rather than at the next idle wake, a second later.
                if live.cursor != before {
                    recheckUntil = nil
                } else if woke, recheckUntil == nil {
                    recheckUntil = Date().addingTimeInterval(Self.recheckWindow)
                } else if let until = recheckUntil, Date() >= until {
                    recheckUntil = nil
                }
                woke = false
                try followSubscriptions(through: live.cursor)
                // Prune in steps of `logRetention` entries, not a delete per batch.
                if live.cursor - prunedThrough > 2 * options.logRetention {
                    let removed = try indexer.pruneAppliedChanges(through: live.cursor, keeping: options.logRetention)
                    prunedThrough = live.cursor - options.logRetention
                    logger.debug(
                        "pruned the change log", metadata: ["entries": "\(removed)", "through": "\(prunedThrough)"])
                }
                if failures > 0 {
                    logger.notice(
                        "applying changes again after \(failures) failed attempts",
                        metadata: ["cursor": "\(live.cursor)"])
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
                if Self.isOutOfSpace(error) {
                    // A rebuild needs more room than a catch-up: keep serving the generation there is, give the
                    // writer back (its failed transaction may have left it unusable), and retry the catch-up.
                    live.close()
                    let state =
                        "the disk is full since \(Self.timestamp(since)) (\(error)); searches get the index as "
                        + "it was; retrying the catch-up every \(Int(pause.rounded(.up))) s"
                    lock.setState(state)
                    logger.error("could not apply changes (attempt \(failures)): \(state)")
                } else {
                    var reason = Self.rebuildReason(for: error)
                    if reason == nil, failures >= Self.indexFailuresBeforeRebuild, Self.isIndexError(error) {
                        reason = "the index failed \(failures) times in a row (\(error))"
                    }
                    if let reason {
                        if replace(&live, reason: reason) { continue }
                    } else {
                        logger.error("could not apply changes (attempt \(failures)): \(error)")
                    }
                    lock.setState("failing since \(Self.timestamp(since)): \(error); retrying")
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
                    replace(&live, reason: "the index cannot be read (\(problem))")
                } else if let generation = live.generation, let damage = indexer.health.damageIfChanged(generation) {
                    // Someone changed the tables behind the watcher's back (it records what it writes).
                    replace(&live, reason: "the index is damaged (\(damage))")
                }
            }
        }
        logger.info("stopped", metadata: ["cursor": "\(live.cursor)"])
    }

    /// The reader subscriptions are followed with, reopened at each batch.
    nonisolated(unsafe) private var subscriptionReader: SearchReader?
    /// The cursor subscriptions were last brought to.
    nonisolated(unsafe) private var subscriptionsCursor: Int64 = -1

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

    /// `2026-11-23T10:00:00Z`.
    private static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// Makes the index directory again after it was removed (`rm -rf`) or moved away under the watcher, takes the
    /// lock in it and rebuilds the index there, so that the watcher's lock is where the index is and a second
    /// watcher finds it. Throws if the directory cannot be made, or another process locked it first.
    private func recreateRemovedDirectory(_ live: inout LiveIndex) throws(IndexerError) {
        let root = indexer.location.root
        logger.error("the index directory \(root) was removed or moved; making it again and rebuilding the index")
        live.close()
        // The removal may still be going on (`rm -rf` empties the directory before removing it): give it a moment.
        let deadline = Date().addingTimeInterval(5)
        while true {
            do {
                try indexer.claimLocation()
                break
            } catch  where error.code == .badIndexPath && Date() < deadline {
                usleep(50_000)
            }
        }
        let acquired: WriterLock?
        do {
            acquired = try WriterLock.acquire(at: indexer.location.lockPath, timeout: 0, purpose: options.purpose)
        } catch {
            throw IndexerError(.index, "cannot lock the new index directory \(root): \(error)")
        }
        guard let taken = acquired else {
            let holder = WriterLock.holder(at: indexer.location.lockPath)
            throw IndexerError(
                .locked,
                "the index directory \(root) was removed, and process \(holder?.pid ?? 0) (\(holder?.purpose ?? "unknown")) "
                    + "locked the new one first; this watcher stops")
        }
        lock = taken
        notifier.watchIndexDirectory(root)
        live = try rebuild(reason: "the index directory was removed")
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
        return true
    }

    /// The index being written (nil after a failure closed it: the next step opens it again), and the last change
    /// applied to it.
    struct LiveIndex {
        var index: SearchableIndex?
        var cursor: Int64
        var generation: String?

        mutating func close() {
            try? index?.close()
            index = nil
        }
    }

    private func openOrRebuild() throws(IndexerError) -> LiveIndex {
        switch try indexer.openCurrentForWriting() {
        case .open(let index, let cursor, let generation):
            return LiveIndex(index: index, cursor: cursor, generation: generation)
        case .needsRebuild(let reason):
            if indexer.location.exists { logger.error("rebuilding the index from the store: \(reason)") }
            return try rebuild(reason: reason)
        }
    }

    /// Closes `live` and puts a rebuild from the store in its place, logging why; false if the rebuild failed
    /// (`live` is then closed, and the next attempt opens or rebuilds again).
    @discardableResult
    private func replace(_ live: inout LiveIndex, reason: String) -> Bool {
        // A removed directory is made again by the loop (``recreateRemovedDirectory(_:)``), not rebuilt in place.
        if !lock.isIntact { return false }
        logger.error("rebuilding the index from the store: \(reason)")
        live.close()
        do {
            live = try rebuild(reason: reason)
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

    private func rebuild(reason: String) throws(IndexerError) -> LiveIndex {
        let started = Date()
        let report = try indexer.rebuildHoldingLock(reason: reason)
        logger.info(
            "rebuilt the index",
            metadata: [
                "reason": "\(reason)", "documents": "\(report.documentsWritten)", "cursor": "\(report.cursor)",
                "seconds": "\(String(format: "%.2f", Date().timeIntervalSince(started)))",
            ])
        warn(report.skipped)
        guard case .open(let index, let cursor, let generation) = try indexer.openCurrentForWriting() else {
            throw IndexerError(.index, "the rebuilt index \(indexer.location.root) cannot be opened")
        }
        return LiveIndex(index: index, cursor: cursor, generation: generation)
    }

    /// Applies every change logged after the cursor, a batch per commit, stopping early if asked to.
    private func applyPending(_ live: inout LiveIndex) throws {
        if live.index == nil {
            // A failure closed it: open it again (or rebuild, if that is what it needs now).
            live = try openOrRebuild()
        }
        guard let index = live.index else { return }
        var horizon = ChangeHorizon(through: live.cursor)
        while !notifier.isStopped {
            let started = DispatchTime.now()
            let cursor = live.cursor
            let batch = try indexer.store.read { reader in
                // A burst of more than a batch (an import) is read ahead, so that each row is written once.
                if !horizon.isComplete && horizon.through - cursor < Int64(options.batchSize) {
                    horizon = try reader.changeHorizon(after: cursor)
                }
                return try reader.changes(after: cursor, limit: options.batchSize, horizon: horizon)
            }
            if batch.isEmpty { return }
            var report = StoreIndexer.Report()
            do {
                try indexer.apply(batch, to: index, report: &report)
            } catch {
                try? index.cancelIndexBatch()
                throw error
            }
            live.cursor = batch.throughSequence
            // What the watcher wrote is recorded, so that only changes made behind its back call for a check.
            if let generation = live.generation { indexer.health.record(generation) }
            let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e6
            logger.debug(
                "applied a batch",
                metadata: [
                    "changes": "\(batch.changeCount)", "documents": "\(report.documentsWritten)",
                    "cursor": "\(live.cursor)", "ms": "\(String(format: "%.1f", milliseconds))",
                ])
            warn(report.skipped)
            if let oldest = batch.firstChangeTime {
                let lag = Int64(Date().timeIntervalSince1970) - oldest
                if lag >= Self.lagWorthReporting {
                    let behind = (try? indexer.store.read { try $0.changeCount(after: live.cursor) }) ?? 0
                    logger.info(
                        "the index is catching up", metadata: ["lag_seconds": "\(lag)", "changes_behind": "\(behind)"])
                }
            }
        }
    }

    private func warn(_ skipped: [StoreIndexer.Report.Skipped]) {
        for document in skipped {
            logger.warning(
                "skipped a document Xapian refused",
                metadata: ["uri": "\(document.uri)", "reason": "\(document.reason)"])
        }
    }

    /// Whether a failure is a full disk or quota (the index's, or the store's when pruning): nothing is damaged,
    /// and a rebuild would only need more room.
    static func isOutOfSpace(_ error: any Error) -> Bool {
        switch error {
        case let error as SearchIndexError: return error.code == .noSpace
        case let error as IndexerError:
            if let indexError = error.indexError { return isOutOfSpace(indexError) }
            if let storeError = error.storeError { return isOutOfSpace(storeError) }
            return SearchIndexError.isOutOfSpace(error.message)
        case let error as StoreError:
            return error.message.contains("database or disk is full") || SearchIndexError.isOutOfSpace(error.message)
        default:
            return SearchIndexError.isOutOfSpace("\(error)")
        }
    }

    /// Why a failure calls for a rebuild rather than a retry, if it does.
    static func rebuildReason(for error: any Error) -> String? {
        switch error {
        case let error as StoreError where error.code == .changeLogGap:
            return error.message
        case let error as SearchIndexError where error.code == .corrupt || error.code == .unavailable:
            return "the index is damaged (\(error.message))"
        case let error as IndexerError:
            if let indexError = error.indexError { return rebuildReason(for: indexError) }
            if let storeError = error.storeError { return rebuildReason(for: storeError) }
            return nil
        default:
            return nil
        }
    }

    /// Consecutive failures of the index itself (not the store) after which it is rebuilt rather than retried.
    static let indexFailuresBeforeRebuild = 3

    static func isIndexError(_ error: any Error) -> Bool {
        switch error {
        case let error as SearchIndexError: return error.code != .locked && error.code != .noSpace
        case let error as IndexerError: return error.indexError.map(isIndexError) ?? false
        default: return false
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

extension StoreIndexer {
    /// Applied changes kept in the log behind an index's cursor before `index` or `watch` prunes them.
    public static let defaultLogRetention: Int64 = 10_000

    /// The pid of the `spotlite watch` or `spotlite serve` keeping this index live, if one is.
    public func liveWatcher() -> Int32? {
        liveHolder()?.pid
    }

    /// The process keeping this index live (`spotlite watch` or `spotlite serve`) and which it is, if one is.
    public func liveHolder() -> (pid: Int32, purpose: String)? {
        guard let holder = WriterLock.holder(at: location.lockPath), IndexWatcher.livePurposes.contains(holder.purpose)
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
