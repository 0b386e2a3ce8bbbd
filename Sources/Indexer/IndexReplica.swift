import Foundation
import Logging
import SearchIndex
import ServiceLifecycle

/// A local copy of an index another host publishes (``IndexPublisher``), kept current by Xapian's own replication
/// client (`xapian-replicate`, one run per copy): `spotlite replica`.
///
/// ```
/// <directory>/spotlite-replica      the marker: a replica of store <uuid>, from HOST:PORT
/// <directory>/copy/                 Xapian's replica directory, made and kept by its client ← readers open this
/// <directory>/copy/XAPIANDB         its stub naming the live copy
/// <directory>/copy/replica_N/       the live copy (a full copy arrives as the other one, swapped in by the stub)
/// <directory>/replica.lock          flock held by the one `spotlite replica` that copies into it
/// <directory>/replica-state         when it last copied, and what the last attempt said
/// ```
///
/// A copy is the primary's index as of one of its commits, never a mix: changesets are applied one commit at a
/// time, and a full copy is swapped in by Xapian renaming the stub. Spotlite writes only into a directory that is new,
/// empty, or marked as a replica of the same store, and removes nothing there: the copies are Xapian's to manage.
public struct IndexReplica: Sendable {
    public let directory: String
    public let host: String
    public let port: Int
    /// The published index's name: its store's UUID.
    public let storeID: String

    static let markerName = "spotlite-replica"
    static let stateName = "replica-state"

    public init(directory: String, host: String, port: Int, storeID: String) {
        self.directory = (directory as NSString).standardizingPath
        self.host = host
        self.port = port
        self.storeID = storeID
    }

    var markerPath: String { directory + "/" + Self.markerName }
    var statePath: String { directory + "/" + Self.stateName }
    var lockPath: String { directory + "/replica.lock" }
    /// Xapian's replica: a database (a stub and its copies) that searches and Xapian's tools open.
    public var copyPath: String { directory + "/copy" }

    /// Makes the directory a replica of this store, or checks that it is one: refused (nothing touched) if it is a
    /// file, holds other things, or is a replica of another store.
    public func claim() throws(IndexerError) {
        var status = stat()
        if lstat(directory, &status) != 0 {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw IndexerError(
                    .index, "cannot create the replica directory \(directory): \(error.localizedDescription)")
            }
        } else if status.st_mode & S_IFMT != S_IFDIR {
            throw IndexerError(
                .badIndexPath, "\(directory) is not a directory; give --into a directory for the replica")
        }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
        if names.contains(Self.markerName) {
            guard let owner = Self.markedStore(markerPath) else {
                throw IndexerError(
                    .badIndexPath, "\(markerPath) is not a marker Spotlite wrote; nothing there was touched")
            }
            guard owner == storeID else {
                throw IndexerError(
                    .badIndexPath,
                    "\(directory) is a replica of store \(owner), not \(storeID); give --into another directory")
            }
            return
        }
        guard names.isEmpty else {
            let shown = names.prefix(3).joined(separator: ", ") + (names.count > 3 ? ", …" : "")
            throw IndexerError(
                .badIndexPath,
                "\(directory) is not empty and not a Spotlite replica (it holds \(shown)); give --into a new or empty "
                    + "directory")
        }
        let marker = """
            # A Spotlite replica: a copy of a published index, kept by `spotlite replica`. Xapian's replication \
            client writes the copies here.
            store \(storeID)
            from \(host):\(port)

            """
        do {
            try IndexLocation.write(Data(marker.utf8), to: markerPath)
        } catch {
            throw IndexerError(.index, "cannot write \(markerPath): \(error)")
        }
    }

    /// Whether the directory is marked as a replica of this store.
    public var exists: Bool { Self.markedStore(markerPath) == storeID }

    /// The store a replica marker names, if the file is one.
    static func markedStore(_ path: String) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8), text.hasPrefix("# A Spotlite replica")
        else { return nil }
        let line = text.split(separator: "\n").first { $0.hasPrefix("store ") }
        return line.map { String($0.dropFirst(6)) }
    }

    /// Takes the replica's lock (one copier at a time), or says who holds it.
    public func lock() throws(IndexerError) -> AnyObject {
        let taken: WriterLock?
        do {
            taken = try WriterLock.acquire(at: lockPath, timeout: 0, purpose: "spotlite replica")
        } catch let error as IndexerError {
            throw error
        } catch {
            throw IndexerError(.index, "cannot lock \(lockPath): \(error)")
        }
        guard let taken else {
            let holder = WriterLock.holder(at: lockPath).map { " (pid \($0.pid))" } ?? ""
            throw IndexerError(
                .locked,
                "another process keeps \(directory) current\(holder): `spotlite replica`, a `watch` or a `serve`")
        }
        return taken
    }

    /// What one run of the replication client did.
    public struct Copy: Sendable, Equatable {
        /// Whole databases received (a new replica, one further behind than the changesets kept, or a rebuild).
        public var fullCopies = 0
        /// Commits received one by one.
        public var changesets = 0
        /// Whether the live copy changed.
        public var changed = false
    }

    /// Brings the copy up to the primary's newest commit: one run of `xapian-replicate --one-shot`, waited for (at
    /// most `timeout` seconds of silence on the connection). Records the outcome in `replica-state` either way.
    /// The caller holds ``lock()``.
    @discardableResult
    public func copy(timeout: Int) throws(IndexerError) -> Copy {
        let started = Date()
        let outcome = Result { () throws(IndexerError) -> Copy in try runClient(timeout: timeout) }
        var state = ReplicaState.read(statePath) ?? ReplicaState()
        state.attemptedAt = started
        switch outcome {
        case .success(let copy):
            state.copiedAt = started
            state.error = nil
            state.fullCopies = Self.adding(state.fullCopies, copy.fullCopies)
            state.changesets = Self.adding(state.changesets, copy.changesets)
        case .failure(let error):
            state.error = error.message
        }
        state.write(statePath)
        return try outcome.get()
    }

    /// Records the primary store's newest change, read right after a copy that succeeded: how far behind it the copy
    /// is (``Status/changesBehind``); nil when it could not be read.
    public func record(primaryChange: Int64?) {
        guard var state = ReplicaState.read(statePath) else { return }
        state.primaryChange = primaryChange
        state.write(statePath)
    }

    /// A count that stops at `Int.max` rather than overflowing (it is read back from a file anyone may edit).
    static func adding(_ total: Int, _ more: Int) -> Int {
        let (sum, overflow) = total.addingReportingOverflow(more)
        return overflow ? Int.max : sum
    }

    private func runClient(timeout: Int) throws(IndexerError) -> Copy {
        let output = directory + "/replica.log"
        let client = try ChildProcess(
            program: "xapian-replicate",
            arguments: [
                "--host", host, "--port", String(port), "--master", storeID, "--one-shot", "--verbose",
                // Changesets are applied one after another at once: Spotlite's readers reopen when a commit
                // overtakes them, so Xapian need not pause for readers between two.
                "--reader-time", "0", "--timeout", String(timeout), copyPath,
            ], outputPath: output)
        let status = client.wait()
        defer { unlink(output) }
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard status == 0 else {
            let said = client.lastOutputLine().map { ": \($0)" } ?? ""
            throw IndexerError(.index, "cannot copy the index of store \(storeID) from \(host):\(port)\(said)")
        }
        guard let copy = Self.parseReport(text) else {
            throw IndexerError(.index, "xapian-replicate did not report a copy from \(host):\(port)")
        }
        if copy.fullCopies > 0 && !copy.changed {
            throw IndexerError(
                .index,
                "the full copy from \(host):\(port) was overtaken by the primary's commits before it was complete; "
                    + "it is tried again at the next copy")
        }
        return copy
    }

    /// Reads `Update complete: 1 copies, 0 changesets, new live database` from the client's verbose output.
    static func parseReport(_ text: String) -> Copy? {
        guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix("Update complete: ") }) else {
            return nil
        }
        let words = line.dropFirst("Update complete: ".count).split(whereSeparator: { $0 == " " || $0 == "," })
        guard words.count >= 4, let copies = Int(words[0]), words[1] == "copies", let changesets = Int(words[2]),
            words[3] == "changesets"
        else { return nil }
        return Copy(fullCopies: copies, changesets: changesets, changed: line.hasSuffix("new live database"))
    }

    /// How current the copy is, as far as this host can tell: when it last reached the primary's newest commit, the
    /// store change it covers, and what the last attempt said.
    public struct Status: Sendable {
        public var storeID: String
        public var from: String
        /// The start of the last copy that succeeded: the copy is at least as current as the primary was then.
        public var copiedAt: Date?
        public var attemptedAt: Date?
        public var error: String?
        public var fullCopies: Int
        public var changesets: Int
        /// The store's change the copy covers (the primary's cursor when it committed what was copied).
        public var cursor: Int64?
        public var documents: Int?
        /// The primary store's newest change right after the last copy that succeeded, when its `serve` was asked.
        public var primaryChange: Int64?

        /// Changes the primary's store had that the copy lacked, right after the last copy that succeeded.
        public var changesBehind: Int64? {
            guard let primaryChange, let cursor else { return nil }
            return max(0, primaryChange.subtractingReportingOverflow(cursor).partialValue)
        }
    }

    /// How current the copy is, from the state file alone (the copy's cursor and size are not read).
    public func lastAttempt() -> Status {
        let state = ReplicaState.read(statePath)
        return Status(
            storeID: storeID, from: "\(host):\(port)", copiedAt: state?.copiedAt, attemptedAt: state?.attemptedAt,
            error: state?.error, fullCopies: state?.fullCopies ?? 0, changesets: state?.changesets ?? 0,
            primaryChange: state?.primaryChange)
    }

    public func status() -> Status {
        var status = lastAttempt()
        if FileManager.default.fileExists(atPath: copyPath + "/XAPIANDB"),
            let reader = try? SearchReader(path: copyPath)
        {
            status.cursor = (try? reader.fetchLastClientState()).flatMap { $0 }.flatMap { Int64($0) }
            status.documents = try? reader.documentCount()
        }
        return status
    }
}

/// `replica-state`: a few `key value` lines, rewritten whole (by a rename) after every attempt.
struct ReplicaState: Equatable {
    var copiedAt: Date?
    var attemptedAt: Date?
    var error: String?
    var fullCopies = 0
    var changesets = 0
    /// The primary store's newest change, as its `serve` said right after the last copy that succeeded.
    var primaryChange: Int64?

    static func read(_ path: String) -> ReplicaState? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        var state = ReplicaState()
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let value = String(parts[1])
            switch parts[0] {
            case "copied_at": state.copiedAt = Double(value).map(Date.init(timeIntervalSince1970:))
            case "attempted_at": state.attemptedAt = Double(value).map(Date.init(timeIntervalSince1970:))
            case "error": state.error = value
            case "full_copies": state.fullCopies = Int(value) ?? 0
            case "changesets": state.changesets = Int(value) ?? 0
            case "primary_change": state.primaryChange = Int64(value)
            default: continue
            }
        }
        return state
    }

    func write(_ path: String) {
        var lines: [String] = []
        if let copiedAt { lines.append("copied_at \(copiedAt.timeIntervalSince1970)") }
        if let attemptedAt { lines.append("attempted_at \(attemptedAt.timeIntervalSince1970)") }
        if let error { lines.append("error " + error.replacingOccurrences(of: "\n", with: " ")) }
        lines.append("full_copies \(fullCopies)")
        lines.append("changesets \(changesets)")
        if let primaryChange { lines.append("primary_change \(primaryChange)") }
        let temporary = path + ".tmp"
        guard (try? IndexLocation.write(Data((lines.joined(separator: "\n") + "\n").utf8), to: temporary)) != nil,
            rename(temporary, path) == 0
        else {
            unlink(temporary)
            return
        }
    }
}

/// Keeps a replica current: a copy every `interval` seconds until the process shuts down (`spotlite replica`).
/// A copy that fails is logged and tried again at the next interval: the primary may be down, restarting or cut off,
/// and the replica catches up when it is back (by changesets if it kept enough of them, else by a full copy).
public struct ReplicaKeeper: Service {
    let replica: IndexReplica
    let interval: Double
    let timeout: Int
    let logger: Logger
    /// Asks the primary for its store's newest change (its `serve`'s `/v1/status`), when its address is known: read
    /// after each copy, for the replica's lag in changes.
    let primaryChange: (@Sendable () throws -> Int64)?

    public init(
        replica: IndexReplica, interval: Double, timeout: Int, logger: Logger,
        primaryChange: (@Sendable () throws -> Int64)? = nil
    ) {
        self.replica = replica
        self.interval = interval
        self.timeout = timeout
        self.logger = logger
        self.primaryChange = primaryChange
    }

    /// Seconds a copy may wait on a silent connection, unless told.
    public static let defaultCopyTimeout = 10

    /// While copies keep failing the same way, one line says so this often (the first failure is logged at once).
    static let repeatedFailureLogInterval: Double = 60

    public func run() async throws {
        var failing = false
        var lastLogged: (message: String, at: ContinuousClock.Instant)?
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let (replica, timeout, primaryChange) = (replica, timeout, primaryChange)
            // The client is waited for on a thread of its own: it must outlive the client (`--pdeathsig`), and a
            // copy may take seconds, which is no work for the concurrency pool's few threads.
            let outcome = await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    let copied = Result { () throws(IndexerError) in try replica.copy(timeout: timeout) }
                    // The lag is a figure to show, not a condition of the copy: a primary whose serve does not
                    // answer leaves it unknown.
                    if case .success = copied, let primaryChange { replica.record(primaryChange: try? primaryChange()) }
                    continuation.resume(returning: copied)
                }
            }
            switch outcome {
            case .success(let copy):
                if copy.changed || failing {
                    logger.info(
                        "copied",
                        metadata: ["full_copies": "\(copy.fullCopies)", "changesets": "\(copy.changesets)"])
                }
                failing = false
                lastLogged = nil
            case .failure(let error):
                // At a short interval an outage would log a line per attempt: the same failure is said once a minute.
                let now = ContinuousClock.now
                if let last = lastLogged, last.message == error.message,
                    now - last.at < .seconds(Self.repeatedFailureLogInterval)
                {
                    break
                }
                logger.warning("\(error.message); trying again every \(interval) s")
                lastLogged = (error.message, now)
                failing = true
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(interval)) }
        }
    }
}
