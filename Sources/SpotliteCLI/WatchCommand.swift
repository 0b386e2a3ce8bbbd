import ArgumentParser
import Foundation
import Indexer
import Logging
import ServiceLifecycle

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
            Logs go to stderr.
            """
    )

    @OptionGroup var options: StoreOptions

    @Option(help: ArgumentHelp("trace, debug, info, notice, warning, error or critical. debug logs every batch.", valueName: "level"))
    var logLevel: Logger.Level = .info

    @Option(help: ArgumentHelp("Changes applied per commit at most.", valueName: "n"))
    var batchSize: Int = IndexWatcher.Options().batchSize

    @Option(help: ArgumentHelp("Applied changes to keep in the store's change log.", valueName: "n"))
    var keepLog: Int = Int(StoreIndexer.defaultLogRetention)

    @Option(help: ArgumentHelp("Seconds to wait for a running `spotlite index` to finish.", valueName: "seconds"))
    var wait: Double = StoreIndexer.defaultLockTimeout

    func validate() throws {
        if batchSize < 1 { throw ValidationError("--batch-size must be at least 1") }
        if keepLog < 0 { throw ValidationError("--keep-log must be 0 or more") }
        if wait < 0 { throw ValidationError("--wait must be 0 or more seconds") }
    }

    func run() throws {
        let logger = Logger.toStandardError(label: "spotlite.watch", level: logLevel)
        var watchOptions = IndexWatcher.Options()
        watchOptions.batchSize = batchSize
        watchOptions.logRetention = Int64(keepLog)
        let watcher = try running {
            try IndexWatcher(indexer: try options.openIndexer(), options: watchOptions, logger: logger, lockTimeout: wait)
        }
        let group = ServiceGroup(
            configuration: .init(
                services: [WatchService(watcher: watcher)],
                gracefulShutdownSignals: [.sigterm, .sigint, .sighup],
                logger: logger))
        try running { try blockOn { try await group.run() } }
    }
}

/// The watcher as a service: its loop runs on a thread of its own (it blocks in poll), and a graceful shutdown
/// (SIGINT, SIGTERM) stops it after the batch in hand.
struct WatchService: Service {
    let watcher: IndexWatcher

    func run() async throws {
        try await withGracefulShutdownHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let thread = Thread {
                    do {
                        try watcher.run()
                        continuation.resume()
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
                thread.name = "spotlite-watch"
                thread.start()
            }
        } onGracefulShutdown: {
            watcher.stop()
        }
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
