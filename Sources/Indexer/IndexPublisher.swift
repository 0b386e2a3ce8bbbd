import Foundation
import Logging
import ServiceLifecycle

/// Publishes a live index to replicas with Xapian's own replication server (`xapian-replicate-server`, from Debian's
/// xapian-tools): `serve --publish` and `watch --publish`. No protocol of Spotlite's crosses the network.
///
/// The server serves every database under one directory, by the name a replica asks for. Spotlite gives it a
/// directory of its own (made by `mkdtemp`, removed at the end), holding only a link per published index, named by
/// its store's UUID: a replica can ask for those and for nothing else on this host.
///
/// What a replica receives: while `XAPIAN_MAX_CHANGESETS` is set in the writer (``enableChangesets()``), each commit
/// also writes a changeset beside the tables (`db-N/changes<revision>`, the newest ``keptChangesets`` kept), and a
/// replica that is behind by fewer commits gets only those. A replica further behind, a new one, or one whose copy
/// is of an older generation (a rebuild makes a new database, with a new UUID) gets the whole current generation,
/// which Xapian swaps in on the replica's side atomically.
///
/// The server is supervised: started before the service group runs (a port in use or a missing tool is an error at
/// once), restarted with a growing pause if it ends on its own, and stopped, with the connections it forked, when the
/// process shuts down.
public final class IndexPublisher: Service, @unchecked Sendable {
    /// How many changesets a published index keeps: a replica further behind than that many commits gets a full
    /// copy instead. The watcher commits a batch at a time, so this covers a replica's short outage under a steady
    /// stream of writes; the files are small (the blocks one commit changed).
    public static let keptChangesets = 100

    public let host: String
    public let port: Int
    /// The published indexes, by the name a replica asks for (the store's UUID).
    public let indexes: [String: IndexLocation]
    private let logger: Logger
    private let state = NSLock()
    private var directory: String?
    private var child: ChildProcess?
    private var stopping = false
    private var supervisor: Thread?
    /// Signalled once the supervising thread has returned.
    private let ended = DispatchSemaphore(value: 0)
    /// Cuts a restart's pause short when the process stops.
    private let wake = DispatchSemaphore(value: 0)

    public init(host: String, port: Int, indexes: [String: IndexLocation], logger: Logger) {
        self.host = host
        self.port = port
        self.indexes = indexes
        self.logger = logger
    }

    /// `HOST:PORT` as given to `--publish`, or nil. The port must be fixed (1…65535): replicas are told it.
    public static func parseAddress(_ text: String) -> (host: String, port: Int)? {
        let host: Substring
        let port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                return nil
            }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0 == "/" }), port.count <= 5,
            port.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let number = Int(port), (1...65535).contains(number)
        else { return nil }
        return (String(host), number)
    }

    /// Makes this process's commits write changesets (Xapian reads the variable at each commit). Call it before
    /// any other thread runs: `setenv` is not safe beside a concurrent `getenv`.
    public static func enableChangesets() {
        setenv("XAPIAN_MAX_CHANGESETS", String(keptChangesets), 1)
    }

    /// Starts the server and waits until it accepts connections: throws if it cannot (the tool missing, the address
    /// taken or not this host's), with the server's own words.
    public func start() throws(IndexerError) {
        let base = (ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp")
        var template = Array((base + "/spotlite-publish-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw IndexerError(.index, "cannot make a directory to publish from in \(base): \(Self.lastError)")
        }
        let root = String(cString: made)
        state.withLock { directory = root }
        for (name, index) in indexes where symlink(index.root, root + "/" + name) != 0 {
            let reason = Self.lastError
            removeDirectory()
            throw IndexerError(.index, "cannot publish \(index.root): \(reason)")
        }
        let started = DispatchSemaphore(value: 0)
        let outcome = LockedBox<Result<Void, IndexerError>>(.success(()))
        let thread = Thread { [self] in
            outcome.value = Result { () throws(IndexerError) in try self.launch(root: root) }
            started.signal()
            if case .success = outcome.value { self.supervise(root: root) }
            self.ended.signal()
        }
        thread.name = "spotlite-publish"
        state.withLock { supervisor = thread }
        thread.start()
        started.wait()
        if case .failure(let error) = outcome.value {
            ended.wait()
            state.withLock { supervisor = nil }
            removeDirectory()
            throw error
        }
        logger.info(
            "publishing the index for replicas",
            metadata: ["address": "\(host):\(port)", "names": "\(indexes.keys.sorted())"])
    }

    /// Waits for the process to shut down, then stops the server.
    public func run() async throws {
        try? await gracefulShutdown()
        stop()
    }

    /// Stops the server and the connections it serves, and removes the directory it served. Safe to call twice.
    public func stop() {
        let (first, running, thread) = state.withLock { () -> (Bool, ChildProcess?, Thread?) in
            defer { stopping = true }
            return (!stopping, child, supervisor)
        }
        guard first else { return }
        if thread != nil {
            running?.terminate()
            wake.signal()
            ended.wait()
        }
        removeDirectory()
    }

    /// Starts the server on the calling thread (which supervises it, and outlives it) and waits until it accepts a
    /// connection, for up to 5 s.
    private func launch(root: String) throws(IndexerError) {
        let process = try ChildProcess(
            program: "xapian-replicate-server",
            arguments: ["--interface", host, "--port", String(port), root], outputPath: root + ".log")
        // A stop that came meanwhile saw the old child: this one is stopped here, or the stop would wait for it.
        let stopped = state.withLock {
            child = process
            return stopping
        }
        if stopped { process.terminate() }
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            if let status = process.poll() {
                let said = process.lastOutputLine().map { ": \($0)" } ?? ""
                throw IndexerError(
                    .index, "cannot publish on \(host):\(port): xapian-replicate-server ended (status \(status))\(said)"
                )
            }
            // Connected, and the server is still there after it: the port is its, not another program's.
            if Self.accepts(host: host, port: port) {
                usleep(50_000)
                if process.poll() == nil { return }
            }
            usleep(20_000)
        }
        process.terminate()
        process.wait()
        throw IndexerError(.index, "cannot publish on \(host):\(port): xapian-replicate-server did not listen in 5 s")
    }

    /// Restarts the server whenever it ends on its own, with a pause growing from 1 s to 30 s, until ``stop()``.
    private func supervise(root: String) {
        var pause: UInt32 = 1
        while true {
            guard let process = state.withLock({ child }) else { return }
            let status = process.wait()
            if state.withLock({ stopping }) { return }
            logger.warning(
                "the replication server ended; starting it again in \(pause) s",
                metadata: ["status": "\(status)", "said": "\(process.lastOutputLine() ?? "")"])
            _ = wake.wait(timeout: .now() + .seconds(Int(pause)))
            pause = min(pause * 2, 30)
            if state.withLock({ stopping }) { return }
            do {
                try launch(root: root)
                pause = 1
            } catch {
                logger.warning("\(error.message)")
            }
        }
    }

    /// The server's process id while it runs (for tests that kill it).
    var serverProcessID: pid_t? { state.withLock { child?.poll() == nil ? child?.pid : nil } }

    /// The directory the server serves, while it does.
    var servedDirectory: String? { state.withLock { directory } }

    private func removeDirectory() {
        guard let root = state.withLock({ directory }) else { return }
        for name in indexes.keys { unlink(root + "/" + name) }
        unlink(root + ".log")
        rmdir(root)
        state.withLock { directory = nil }
    }

    /// Whether a TCP connection to `host:port` is accepted.
    static func accepts(host: String, port: Int) -> Bool {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { return false }
        defer { freeaddrinfo(list) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            let socket = Glibc.socket(
                address.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            if socket >= 0 {
                defer { close(socket) }
                if connect(socket, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 { return true }
            }
            entry = address.pointee.ai_next
        }
        return false
    }

    /// Whether every address `host` resolves to is a loopback one (127.0.0.0/8, ::1); false if it does not resolve.
    public static func isLoopback(host: String) -> Bool {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return false }
        defer { freeaddrinfo(list) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            switch address.pointee.ai_family {
            case AF_INET:
                let v4 = UnsafeRawPointer(address.pointee.ai_addr).load(as: sockaddr_in.self)
                guard UInt32(bigEndian: v4.sin_addr.s_addr) >> 24 == 127 else { return false }
            case AF_INET6:
                let v6 = UnsafeRawPointer(address.pointee.ai_addr).load(as: sockaddr_in6.self)
                let bytes = withUnsafeBytes(of: v6.sin6_addr) { Array($0) }
                guard bytes[..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 else { return false }
            default:
                return false
            }
            entry = address.pointee.ai_next
        }
        return true
    }

    private static var lastError: String { String(cString: strerror(errno)) }
}

/// A value one thread sets and another reads after a semaphore between them.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
