import ArgumentParser
import Foundation
import Indexer
import Logging
import ServiceLifecycle
import SpotliteJSON
import SpotliteRemote

/// `--publish` of `serve` and `watch`: the index they keep live, offered to replicas by Xapian's replication server.
struct PublishOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Publish the index for replicas (`spotlite replica`) with Xapian's replication server on HOST:PORT.",
            valueName: "host:port"))
    var publish: String?

    @Flag(
        help: ArgumentHelp(
            "Allow --publish on an address beyond loopback. Xapian's replication has no token: whoever reaches the "
                + "address can copy the index, and the words of the store in it. Use a private network."))
    var publishBeyondLoopback = false

    func validate() throws {
        guard let publish else {
            if publishBeyondLoopback { throw ValidationError("--publish-beyond-loopback goes with --publish") }
            return
        }
        guard let (host, _) = IndexPublisher.parseAddress(publish) else {
            throw ValidationError(
                "--publish takes HOST:PORT with a port from 1 to 65535, e.g. 127.0.0.1:7701, not '\(publish)'")
        }
        if !publishBeyondLoopback && !IndexPublisher.isLoopback(host: host) {
            throw ValidationError(
                "--publish \(publish) is not a loopback address, and Xapian's replication has no token; give "
                    + "--publish-beyond-loopback to publish on a private network")
        }
    }

    /// The publisher of `store`'s index, started (changesets on for this process's commits), or nil without
    /// --publish. Call it before the process starts other threads.
    func startPublisher(storeID: String, indexPath: String, logger: Logger) throws -> IndexPublisher? {
        try startPublisher(indexes: [storeID: indexPath], logger: logger)
    }

    /// The publisher of these indexes (by their stores' UUIDs), one replication server for them all.
    func startPublisher(indexes: [String: String], logger: Logger) throws -> IndexPublisher? {
        guard let publish, let (host, port) = IndexPublisher.parseAddress(publish) else { return nil }
        IndexPublisher.enableChangesets()
        let publisher = IndexPublisher(
            host: host, port: port, indexes: indexes.mapValues { IndexLocation(root: $0) }, logger: logger)
        try running { try publisher.start() }
        return publisher
    }
}

struct ReplicaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replica",
        abstract:
            "Keep a local copy of an index another host publishes (`serve --publish`), with Xapian's replication.",
        discussion: """
            Copies the index of store UUID from the host's replication server into --into, then again every \
            --interval seconds until SIGINT, SIGTERM or SIGHUP: each copy brings the commits made since the last \
            (changesets), or the whole index when the copy is new, was too far behind, or the primary rebuilt it. A \
            copy is always the primary's index as of one of its commits. A copy that fails (the primary down, cut \
            off, restarting) is logged and tried again at the next interval. --once copies once and exits: 0 when \
            the copy is current, 6 when it failed. --status prints how current the copy is. Xapian's tools read the \
            copy: `xapian-delve DIR/copy`. Logs go to stderr.
            """
    )

    @Option(
        help: ArgumentHelp(
            "The publishing host's replication address (its --publish); a remote store's name gives it.",
            valueName: "host:port"))
    var from: String?

    @Option(
        help: ArgumentHelp(
            "The UUID of the store whose index to copy, or the name of a remote store (`stores add --serve`).",
            valueName: "uuid|name"))
    var store: String

    @Option(
        help: ArgumentHelp(
            "Where to keep the copy. Default: $XDG_CACHE_HOME/spotlite/replicas/<uuid>.", valueName: "path"))
    var into: String?

    @Option(help: ArgumentHelp("Seconds between two copies.", valueName: "seconds"))
    var interval: Double = 5

    @Option(help: ArgumentHelp("Seconds a copy may wait on a silent connection before it fails.", valueName: "seconds"))
    var timeout: Int = ReplicaKeeper.defaultCopyTimeout

    @Flag(help: "Copy once, then exit.")
    var once = false

    @Flag(help: "Print how current the copy is, and copy nothing.")
    var status = false

    @Option(help: ArgumentHelp("The --status report's format: text or json.", valueName: "format"))
    var format: ReportFormat = .text

    @Option(help: ArgumentHelp("trace, debug, info, notice, warning, error or critical.", valueName: "level"))
    var logLevel: Logger.Level = .info

    /// Whether --store is a UUID (else the name of a remote store).
    var storeIsUUID: Bool { UUID(uuidString: store)?.uuidString.lowercased() == store.lowercased() }

    func validate() throws {
        if storeIsUUID {
            guard let from else {
                throw ValidationError(
                    "--store \(store) needs --from HOST:PORT, the primary's --publish (or name a remote store)")
            }
            if IndexPublisher.parseAddress(from) == nil {
                throw ValidationError(
                    "--from takes HOST:PORT with a port from 1 to 65535, e.g. 10.0.0.2:7701, not '\(from)'")
            }
        } else {
            if StoreCatalog.nameProblem(store) != nil {
                throw ValidationError(
                    "--store takes a store's UUID (`spotlite status` prints it on the primary) or a remote store's "
                        + "name, not '\(store)'")
            }
            if from != nil || into != nil {
                throw ValidationError(
                    "--from and --into come from the remote store '\(store)'; give its UUID to set them")
            }
        }
        if !(interval >= 0.1 && interval <= 86_400) {
            throw ValidationError("--interval takes seconds from 0.1 to 86400")
        }
        if !(1...3600).contains(timeout) { throw ValidationError("--timeout takes whole seconds from 1 to 3600") }
        if once && status { throw ValidationError("--once and --status do not go together") }
    }

    /// The replica to keep, and for a remote store the entry naming it (whose `serve` says how far behind it is).
    func target() throws -> (replica: IndexReplica, entry: StoreCatalog.Entry?) {
        if storeIsUUID, let from, let (host, port) = IndexPublisher.parseAddress(from) {
            let uuid = store.lowercased()
            let directory = into ?? Paths.defaultReplica(storeID: uuid)
            return (IndexReplica(directory: directory, host: host, port: port, storeID: uuid), nil)
        }
        let catalog = try StoreCatalog.load()
        guard let entry = catalog.entry(named: store), let replica = entry.replica else {
            let remote = catalog.entries.filter(\.isRemote).map(\.name).joined(separator: ", ")
            throw CLIError(
                "no remote store named '\(store)'\(remote.isEmpty ? "" : " (remote: \(remote))"); "
                    + "`spotlite stores add NAME --serve URL --publish HOST:PORT` names one", status: .usage)
        }
        return (replica, entry)
    }

    func run() throws {
        let (replica, entry) = try target()
        if status {
            try running { try printStatus(replica) }
            return
        }
        let logger = Logger.toStandardError(label: "spotlite.replica", level: logLevel)
        let lock = try running { () throws -> AnyObject in
            try replica.claim()
            return try replica.lock()
        }
        defer { withExtendedLifetime(lock) {} }
        if once {
            let copy = try running { try replica.copy(timeout: timeout) }
            let cursor = replica.status().cursor.map { ", cursor \($0)" } ?? ""
            if let primaryChange = try entry?.primaryChange() { replica.record(primaryChange: try? primaryChange()) }
            Output.line(
                "copied store \(replica.storeID) from \(replica.host):\(replica.port) into \(replica.directory): "
                    + "\(copy.fullCopies) full copies, \(copy.changesets) changesets\(cursor)")
            return
        }
        logger.info(
            "keeping a replica",
            metadata: [
                "from": "\(replica.host):\(replica.port)", "store": "\(replica.storeID)",
                "into": "\(replica.directory)",
            ])
        let keeper = ReplicaKeeper(
            replica: replica, interval: interval, timeout: timeout, logger: logger,
            primaryChange: try entry?.primaryChange())
        let group = ServiceGroup(
            configuration: .init(
                services: [keeper], gracefulShutdownSignals: [.sigterm, .sigint, .sighup], logger: logger))
        try running { try blockOn { try await group.run() } }
    }

    func printStatus(_ replica: IndexReplica) throws {
        guard replica.exists else {
            throw CLIError(
                "\(replica.directory) holds no replica of store \(replica.storeID); `spotlite replica --store \(store)\(from.map { " --from \($0)" } ?? "")` makes one",
                status: .notFound)
        }
        let status = replica.status()
        let now = Date()
        let age = status.copiedAt.map { max(0, now.timeIntervalSince($0)) }
        switch format {
        case .json:
            Output.line(StatusJSON.replica(status, directory: replica.directory, now: now).text)
        case .text:
            Output.line("replica of store \(status.storeID) from \(status.from), in \(replica.directory)")
            if let copiedAt = status.copiedAt, let age {
                Output.line("last copy: \(StatusJSON.timestamp(copiedAt)) (\(String(format: "%.1f", age)) s ago)")
            } else {
                Output.line("last copy: none yet")
            }
            if let cursor = status.cursor, let documents = status.documents {
                Output.line("copy: \(documents) documents, store change \(cursor)")
            }
            if let behind = status.changesBehind, let primary = status.primaryChange {
                Output.line("behind the primary: \(behind) changes (its store was at change \(primary) after the copy)")
            }
            Output.line("received: \(status.fullCopies) full copies, \(status.changesets) changesets")
            if let error = status.error { Output.line("last attempt failed: \(error)") }
        }
    }
}

extension StoreCatalog.Entry {
    /// For a remote store, how to ask its `serve` for its store's newest change (the replica's lag); nil for a store
    /// on this host.
    func primaryChange() throws -> (@Sendable () throws -> Int64)? {
        guard let serve = serve.flatMap(ServeURL.parse) else { return nil }
        let (token, timeout) = (try token(), timeout ?? Self.defaultTimeout)
        return { try RemoteStatus.fetch(serve, token: token, timeout: timeout).lastChange }
    }
}

extension [StoreCatalog.Entry] {
    /// Keepers of the remote stores' replicas among these entries, each at its entry's interval, and the locks they
    /// hold (kept while they run). A replica another process keeps already (`spotlite replica`, a `watch`) is left to
    /// it when `leaveKept`, else it is an error.
    func replicaKeepers(logger: Logger, leaveKept: Bool) throws -> (services: [any Service], locks: [AnyObject]) {
        var services: [any Service] = []
        var locks: [AnyObject] = []
        for entry in self {
            guard let replica = entry.replica else { continue }
            var logger = logger
            logger[metadataKey: "store_name"] = "\(entry.name)"
            try replica.claim()
            guard let lock = try Self.lock(replica, leaveKept: leaveKept, logger: logger) else { continue }
            locks.append(lock)
            services.append(
                ReplicaKeeper(
                    replica: replica, interval: entry.interval ?? StoreCatalog.Entry.defaultInterval,
                    timeout: ReplicaKeeper.defaultCopyTimeout, logger: logger, primaryChange: try entry.primaryChange())
            )
        }
        return (services, locks)
    }

    /// `replica`'s lock, or nil (logged) when another process holds it and `leaveKept`.
    private static func lock(_ replica: IndexReplica, leaveKept: Bool, logger: Logger) throws -> AnyObject? {
        let result = Result { () throws(IndexerError) in try replica.lock() }
        if case .failure(let error) = result, error.code == .locked, leaveKept {
            logger.info("\(error.message); its copy is searched as that process keeps it")
            return nil
        }
        return try result.get()
    }
}
