import ArgumentParser
import Foundation
import Indexer
import Logging
import ServiceLifecycle
import SpotliteJSON

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
        guard let publish, let (host, port) = IndexPublisher.parseAddress(publish) else { return nil }
        IndexPublisher.enableChangesets()
        let publisher = IndexPublisher(
            host: host, port: port, indexes: [storeID: IndexLocation(root: indexPath)], logger: logger)
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

    @Option(help: ArgumentHelp("The publishing host's replication address (its --publish).", valueName: "host:port"))
    var from: String

    @Option(help: ArgumentHelp("The UUID of the store whose index to copy.", valueName: "uuid"))
    var store: String

    @Option(
        help: ArgumentHelp(
            "Where to keep the copy. Default: $XDG_CACHE_HOME/spotlite/replicas/<uuid>.", valueName: "path"))
    var into: String?

    @Option(help: ArgumentHelp("Seconds between two copies.", valueName: "seconds"))
    var interval: Double = 5

    @Option(help: ArgumentHelp("Seconds a copy may wait on a silent connection before it fails.", valueName: "seconds"))
    var timeout: Int = 10

    @Flag(help: "Copy once, then exit.")
    var once = false

    @Flag(help: "Print how current the copy is, and copy nothing.")
    var status = false

    @Option(help: ArgumentHelp("The --status report's format: text or json.", valueName: "format"))
    var format: ReportFormat = .text

    @Option(help: ArgumentHelp("trace, debug, info, notice, warning, error or critical.", valueName: "level"))
    var logLevel: Logger.Level = .info

    func validate() throws {
        if IndexPublisher.parseAddress(from) == nil {
            throw ValidationError(
                "--from takes HOST:PORT with a port from 1 to 65535, e.g. 10.0.0.2:7701, not '\(from)'")
        }
        guard let uuid = UUID(uuidString: store), uuid.uuidString.lowercased() == store.lowercased() else {
            throw ValidationError(
                "--store takes a store's UUID (`spotlite status` prints it on the primary), not '\(store)'")
        }
        if !(interval >= 0.1 && interval <= 86_400) {
            throw ValidationError("--interval takes seconds from 0.1 to 86400")
        }
        if !(1...3600).contains(timeout) { throw ValidationError("--timeout takes whole seconds from 1 to 3600") }
        if once && status { throw ValidationError("--once and --status do not go together") }
    }

    var replica: IndexReplica {
        let (host, port) = IndexPublisher.parseAddress(from) ?? (from, 0)
        let uuid = store.lowercased()
        let base = Paths.environment("XDG_CACHE_HOME") ?? Paths.home + "/.cache"
        return IndexReplica(
            directory: into ?? base + "/spotlite/replicas/" + uuid, host: host, port: port, storeID: uuid)
    }

    func run() throws {
        let replica = replica
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
            Output.line(
                "copied store \(replica.storeID) from \(from) into \(replica.directory): \(copy.fullCopies) full "
                    + "copies, \(copy.changesets) changesets\(cursor)")
            return
        }
        logger.info(
            "keeping a replica",
            metadata: ["from": "\(from)", "store": "\(replica.storeID)", "into": "\(replica.directory)"])
        let keeper = ReplicaKeeper(replica: replica, interval: interval, timeout: timeout, logger: logger)
        let group = ServiceGroup(
            configuration: .init(
                services: [keeper], gracefulShutdownSignals: [.sigterm, .sigint, .sighup], logger: logger))
        try running { try blockOn { try await group.run() } }
    }

    func printStatus(_ replica: IndexReplica) throws {
        guard replica.exists else {
            throw CLIError(
                "\(replica.directory) holds no replica of store \(replica.storeID); `spotlite replica --from \(from) --store \(replica.storeID)` makes one",
                status: .notFound)
        }
        let status = replica.status()
        let now = Date()
        let age = status.copiedAt.map { max(0, now.timeIntervalSince($0)) }
        switch format {
        case .json:
            // Keys whose value is not known yet are left out, as before any copy.
            let known: [(String, JSON?)] = [
                ("store_uuid", .string(status.storeID)), ("from", .string(status.from)),
                ("directory", .string(replica.directory)),
                ("copied_at", status.copiedAt.map { .string(Self.timestamp($0)) }),
                ("seconds_since_copy", age.map { .double(($0 * 1000).rounded() / 1000) }),
                ("attempted_at", status.attemptedAt.map { .string(Self.timestamp($0)) }),
                ("last_error", status.error.map { .string($0) }), ("cursor", status.cursor.map { .int(Int($0)) }),
                ("documents", status.documents.map { .int($0) }), ("full_copies", .int(status.fullCopies)),
                ("changesets", .int(status.changesets)),
            ]
            let pairs = known.compactMap { key, value in value.map { (key, $0) } }
            Output.line(JSON.object(pairs).text)
        case .text:
            Output.line("replica of store \(status.storeID) from \(status.from), in \(replica.directory)")
            if let copiedAt = status.copiedAt, let age {
                Output.line("last copy: \(Self.timestamp(copiedAt)) (\(String(format: "%.1f", age)) s ago)")
            } else {
                Output.line("last copy: none yet")
            }
            if let cursor = status.cursor, let documents = status.documents {
                Output.line("copy: \(documents) documents, store change \(cursor)")
            }
            Output.line("received: \(status.fullCopies) full copies, \(status.changesets) changesets")
            if let error = status.error { Output.line("last attempt failed: \(error)") }
        }
    }

    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
