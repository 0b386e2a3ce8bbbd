import Dispatch
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Keeps one store's index live, applying each change any process commits to the store within milliseconds: the
/// watcher of `spotlite watch` (one per store with `--stores`) and of `spotlite serve`, which run it as a
/// swift-service-lifecycle `Service` (``run()``); ``watch()`` runs it on the caller's thread instead.
///
/// It holds the index's write lock while it watches, so it is the one writer: `spotlite index` and a search's
/// catch-up see the lock's purpose (``Options/purpose``) and wait for it instead of writing, and a second watcher
/// refuses to start. It wakes on the store's file events (``ChangeNotifier``), applies everything logged since its
/// cursor through a ``ChangeApplier`` in batches of at most ``Options/batchSize`` changes, one Xapian commit each — a
/// burst that arrives while a batch commits is grouped into the next one — and sleeps again.
///
/// It never stops on bad data or a failing index: a document Xapian refuses is skipped with a warning; a damaged
/// index, or one whose changes were pruned from the log, is rebuilt from the store; any other failure is logged and
/// retried with a growing pause (``WatchLoop``). A watcher made with ``init(store:opening:options:logger:lockTimeout:)``
/// also outlives its store: one that cannot be opened or locked is tried again, 1 s later, doubling to 60 s.
public final class IndexWatcher: Service, Sendable {
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
        public var purpose = StoreIndexer.watchPurpose
        /// Called (on the watcher's thread) with the ids of the subscriptions that got events after a batch: each
        /// subscription is brought to the index's cursor after every batch, before the log is pruned.
        public var onSubscriptionEvents: (@Sendable ([String]) -> Void)?

        public init() {}
    }

    let options: Options
    let logger: Logger
    private let lockTimeout: TimeInterval
    private let source: Source
    private let signal = StopSignal()

    /// Where the watcher's store and index come from.
    private enum Source: Sendable {
        /// Opened and locked when the watcher was made: a failure to start is the maker's to report.
        case opened(WatchSession)
        /// Opened (and locked) when the watch starts, and again after any failure, until stopped.
        case reopening(name: String, open: @Sendable () throws -> StoreIndexer)
    }

    /// Takes the index's write lock, waiting up to `lockTimeout` seconds for a `spotlite index` or rebuild to
    /// finish. Throws ``IndexerError/Code-swift.struct/locked`` at once if another watcher keeps the index.
    public init(indexer: StoreIndexer, options: Options = Options(), logger: Logger, lockTimeout: TimeInterval)
        throws(IndexerError)
    {
        self.options = options
        self.logger = logger
        self.lockTimeout = lockTimeout
        source = .opened(try WatchSession(indexer: indexer, purpose: options.purpose, lockTimeout: lockTimeout))
    }

    /// A watcher of the store `open` opens (`name`: what the log calls it), which keeps trying while it cannot: the
    /// store missing, locked or kept live by another watcher is logged and tried again with a growing pause, while
    /// the other watchers of the process go on.
    public init(
        store name: String, opening open: @escaping @Sendable () throws -> StoreIndexer, options: Options = Options(),
        logger: Logger, lockTimeout: TimeInterval
    ) {
        self.options = options
        self.logger = logger
        self.lockTimeout = lockTimeout
        source = .reopening(name: name, open: open)
    }

    /// Makes ``run()`` or ``watch()`` return after the batch in hand, if any, is committed. Safe from any thread.
    public func stop() {
        signal.stop()
    }

    /// The watcher as a service: it watches on a thread of its own (it blocks in poll) until a graceful shutdown or a
    /// cancellation, then commits what it applied and returns. Throws what ``watch()`` throws.
    public func run() async throws {
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let thread = Thread { [self] in
                        do {
                            try watch()
                            continuation.resume()
                        } catch {
                            continuation.resume(throwing: error)
                        }
                    }
                    thread.name = "spotlite-watch"
                    thread.start()
                }
            } onGracefulShutdown: {
                self.stop()
            }
        } onCancel: {
            self.stop()
        }
    }

    /// Applies changes until ``stop()``; then closes the index (everything applied is committed) and returns.
    ///
    /// A watcher made with ``init(indexer:options:logger:lockTimeout:)`` throws if the index cannot be opened or built
    /// at start, if another store's file replaces the store, or if the index directory is removed and cannot be made
    /// again; one made with ``init(store:opening:options:logger:lockTimeout:)`` logs those and tries again.
    public func watch() throws(IndexerError) {
        switch source {
        case .opened(let session):
            guard signal.hold(session.notifier) else { return }
            defer { _ = signal.hold(nil) }
            try WatchLoop(session: session, options: options, logger: logger).run()
        case .reopening(let name, let open):
            var failures = 0
            while !signal.isStopped {
                do {
                    let session = try WatchSession(
                        indexer: try open(), purpose: options.purpose, lockTimeout: lockTimeout)
                    guard signal.hold(session.notifier) else { break }
                    defer { _ = signal.hold(nil) }
                    if failures > 0 {
                        logger.notice("store '\(name)' is watched again after \(failures) failed attempts")
                    }
                    failures = 0
                    try WatchLoop(session: session, options: options, logger: logger).run()
                } catch {
                    failures += 1
                    let pause = min(60, pow(2, Double(min(failures - 1, 6))))
                    logger.error(
                        "store '\(name)' cannot be watched (attempt \(failures)): \(IndexFailure.describe(error)); retrying in \(Int(pause)) s"
                    )
                    signal.pause(pause)
                }
            }
        }
    }
}

/// What one watch of one store's index holds from start to end: the store and index, the write lock (given back when
/// the last copy goes), and the store's file events.
struct WatchSession: Sendable {
    let indexer: StoreIndexer
    let lock: WriterLock
    let notifier: ChangeNotifier

    /// Takes the index's write lock (see ``IndexWatcher/init(indexer:options:logger:lockTimeout:)``) and starts
    /// following the store's file events.
    init(indexer: StoreIndexer, purpose: String, lockTimeout: TimeInterval) throws(IndexerError) {
        self.indexer = indexer
        lock = try indexer.acquireLock(timeout: lockTimeout, purpose: purpose)
        do {
            notifier = try ChangeNotifier(storePath: indexer.store.path, indexRoot: indexer.location.root)
        } catch {
            throw IndexerError(.index, "cannot watch \(indexer.store.path): \(error)")
        }
    }
}

/// Whether a watcher is asked to stop, and the file events of the watch in hand, which ``stop()`` wakes.
private final class StopSignal: Sendable {
    private struct State: Sendable {
        var stopped = false
        var notifier: ChangeNotifier?
    }
    private let state = Mutex(State())
    private let woken = DispatchSemaphore(value: 0)

    var isStopped: Bool { state.withLock { $0.stopped } }

    func stop() {
        let notifier = state.withLock { state in
            state.stopped = true
            return state.notifier
        }
        notifier?.stop()
        woken.signal()
    }

    /// Makes `notifier` the one ``stop()`` wakes; false (and nothing kept) once stopping.
    func hold(_ notifier: ChangeNotifier?) -> Bool {
        state.withLock { state in
            state.notifier = state.stopped ? nil : notifier
            return !state.stopped
        }
    }

    /// Waits `seconds`, or less if stopped meanwhile.
    func pause(_ seconds: TimeInterval) {
        if woken.wait(timeout: .now() + seconds) == .success { woken.signal() }  // left for any later pause
    }
}
