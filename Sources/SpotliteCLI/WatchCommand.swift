import ArgumentParser
import Foundation
import Indexer
import Logging
import ServiceLifecycle
import SpotliteJSON
import TrackerStore

struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Keep the index live: apply every change committed to the store, by any process, as it happens.",
        discussion: """
            Runs until SIGINT, SIGTERM or SIGHUP (a closed terminal), then commits what is applied, releases the \
            index and exits 0. \
            Wakes on the store's file events (inotify; a 50 ms poll where there is none), applies bursts of \
            changes as one Xapian commit, rebuilds a damaged index from the store, skips documents Xapian \
            refuses with a warning, and prunes applied changes from the store's change log beyond --keep-log. \
            One watcher per index: while it runs, `spotlite index` and searches wait for it instead of writing. \
            With --stores, one process keeps the index of each named store live; a store that fails (missing, \
            locked, another watcher on it) is logged and retried with a growing pause while the others go on. A \
            remote store's replica is kept current instead, as `spotlite replica --store NAME` would, every \
            `interval` seconds of its entry. With --stores and --publish, one replication server publishes the \
            index of every store here that opens at the start, each under its store's UUID. \
            Logs go to stderr.
            """
    )

    @OptionGroup var options: StoreOptions
    @OptionGroup var publishing: PublishOptions

    @Option(
        help: ArgumentHelp(
            "trace, debug, info, notice, warning, error or critical. debug logs every batch.", valueName: "level"))
    var logLevel: Logger.Level = .info

    @Option(help: ArgumentHelp("Changes applied per commit at most.", valueName: "n"))
    var batchSize: Int = IndexWatcher.Options().batchSize

    @Option(help: ArgumentHelp("Applied changes to keep in the store's change log.", valueName: "n"))
    var keepLog: Int = Int(StoreIndexer.defaultLogRetention)

    @Option(help: ArgumentHelp("Seconds to wait for a running `spotlite index` to finish.", valueName: "seconds"))
    var wait: Double = StoreIndexer.defaultLockTimeout

    @Option(
        help: ArgumentHelp(
            "Keep these named stores' indexes live, in one process: all, or names separated by commas.",
            valueName: "names"))
    var stores: String?

    func validate() throws {
        if stores != nil && options.index != nil {
            throw ValidationError(
                "--index names one store's index; with --stores each store's index is in its default place")
        }
        if batchSize < 1 { throw ValidationError("--batch-size must be at least 1") }
        if keepLog < 0 { throw ValidationError("--keep-log must be 0 or more") }
        if wait < 0 { throw ValidationError("--wait must be 0 or more seconds") }
    }

    func run() throws {
        let logger = Logger.toStandardError(label: "spotlite.watch", level: logLevel)
        var watchOptions = IndexWatcher.Options()
        watchOptions.batchSize = batchSize
        watchOptions.logRetention = Int64(keepLog)
        var watchers: [IndexWatcher]
        var services: [any Service] = []
        // The replicas' locks, held while their keepers run.
        var locks: [AnyObject] = []
        defer { withExtendedLifetime(locks) {} }
        if let stores {
            let selected = try running { try StoreCatalog.load().select(stores, defaultStore: options.storePath) }
            // A remote store's index is kept by copying its host's: one keeper per replica, at its interval.
            let keepers = try running { try selected.replicaKeepers(logger: logger, leaveKept: false) }
            services += keepers.services
            locks += keepers.locks
            let entries = selected.filter { !$0.isRemote }
            // One replication server for every store here: each index under its store's UUID. A store that does not
            // open now is watched (and retried) but not published; the log says so.
            if publishing.publish != nil {
                var indexes: [String: String] = [:]
                for entry in entries {
                    do {
                        let uuid = try TrackerStore.open(at: entry.path, readOnly: true).uuid
                        indexes[uuid] = Paths.defaultIndex(storeID: uuid)
                    } catch {
                        logger.warning(
                            "not published: \(ErrorCode.classify(error).message)",
                            metadata: ["store_name": "\(entry.name)"])
                    }
                }
                if let publisher = try publishing.startPublisher(indexes: indexes, logger: logger) {
                    services.insert(publisher, at: 0)
                }
            }
            watchers = entries.map { entry in
                var logger = logger
                logger[metadataKey: "store_name"] = "\(entry.name)"
                return IndexWatcher(
                    store: entry.name,
                    opening: {
                        let store = try TrackerStore.open(at: entry.path, readOnly: entry.role == .public)
                        return StoreIndexer(store: store, indexPath: Paths.defaultIndex(storeID: store.uuid))
                    }, options: watchOptions, logger: logger, lockTimeout: wait)
            }
        } else {
            let indexer = try running { try options.openIndexer() }
            if let publisher = try publishing.startPublisher(
                storeID: indexer.store.uuid, indexPath: indexer.location.root, logger: logger)
            {
                services.append(publisher)
            }
            watchers = [
                try running {
                    try IndexWatcher(indexer: indexer, options: watchOptions, logger: logger, lockTimeout: wait)
                }
            ]
        }
        defer { for case let publisher as IndexPublisher in services { publisher.stop() } }
        // The publisher is listed first, so that it stops last: after the watcher's final commit.
        let group = ServiceGroup(
            configuration: .init(
                services: services + watchers, gracefulShutdownSignals: [.sigterm, .sigint, .sighup], logger: logger))
        try running { try blockOn { try await group.run() } }
    }
}

/// Runs async work from the synchronous command tree, blocking the calling thread until it ends.
func blockOn(_ body: @escaping @Sendable () async throws -> Void) throws {
    final class Outcome: @unchecked Sendable {
        var error: (any Error)?
    }
    let outcome = Outcome()
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            try await body()
        } catch {
            outcome.error = error
        }
        done.signal()
    }
    done.wait()
    if let error = outcome.error { throw error }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

extension Logger {
    /// Sends every logger of the process to stderr at `level` (once per process: the logging system is bootstrapped
    /// once), and returns the command's own.
    static func toStandardError(label: String, level: Logger.Level) -> Logger {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        return Logger(label: label)
    }
}
