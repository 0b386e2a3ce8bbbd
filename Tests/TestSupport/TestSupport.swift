import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A fresh directory under the system temp directory, removed when the value goes away.
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String

    public init(_ label: String = "spotlite-test") {
        let base = NSTemporaryDirectory() + "\(label)-\(getpid())-\(UUID().uuidString.prefix(8))"
        try! FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        path = base
    }

    /// A path inside the directory.
    public func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Files of the repository.
public enum Repository {
    /// The package root, found from this source file's location.
    public static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    public static var portfolio: String { root + "/samples/portfolio.jsonl" }
    public static var debianCorpus: String { root + "/samples/debian-changelogs.jsonl.gz" }

    /// The Debian changelog corpus, decompressed (by gzip, once per process).
    public static let debianCorpusData: Data = {
        let result = run(["gzip", "-dc", debianCorpus])
        guard result.status == 0 else {
            // The tests that read it fail on their own (an empty corpus), and say why here.
            FileHandle.standardError.write(Data("cannot decompress \(debianCorpus): \(result.stderr)\n".utf8))
            return Data()
        }
        return result.stdoutData
    }()
}

/// What a finished process left.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdoutData: Data
    public var stderr: String
    public var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
    public var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }
}

/// A program a test runs is killed after this many seconds: a command that should have failed at once and serves
/// instead (a port that was not taken after all) fails its test rather than hanging the run.
public let runTimeLimit: Double = 600

/// Runs a program (looked up on PATH unless absolute) to completion, or for ``runTimeLimit`` seconds (then it is
/// killed: SIGKILL, and its status says so).
@discardableResult
public func run(
    _ arguments: [String], input: Data? = nil, environment: [String: String] = [:], directory: String? = nil
) -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    env["NO_COLOR"] = "1"
    for (key, value) in environment { env[key] = value }
    process.environment = env
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let stdout = Pipe()
    let stderr = Pipe()
    let stdin = Pipe()
    process.standardOutput = stdout
    process.standardError = stderr
    process.standardInput = stdin
    try! process.run()
    // Read both pipes concurrently with the child so that neither can fill up and block it.
    let group = DispatchGroup()
    nonisolated(unsafe) var out = Data()
    nonisolated(unsafe) var err = Data()
    DispatchQueue.global().async(group: group) { out = stdout.fileHandleForReading.readDataToEndOfFile() }
    DispatchQueue.global().async(group: group) { err = stderr.fileHandleForReading.readDataToEndOfFile() }
    let pid = process.processIdentifier
    let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
    DispatchQueue.global().asyncAfter(deadline: .now() + runTimeLimit, execute: watchdog)
    if let input { stdin.fileHandleForWriting.write(input) }
    try? stdin.fileHandleForWriting.close()
    process.waitUntilExit()
    watchdog.cancel()
    group.wait()
    return ProcessResult(
        status: process.terminationStatus, stdoutData: out, stderr: String(decoding: err, as: UTF8.self))
}

/// A flag one thread sets and others read: tells a background writer in a test to stop.
public final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    public init() {}

    public var isSet: Bool { lock.withLock { value } }
    public func set() { lock.withLock { value = true } }
}

/// Loopback ports for tests that start servers on fixed ports (Xapian's replication server takes no port 0).
public enum LoopbackPort {
    /// A socket bound to a loopback port of the kernel's choice (listening if asked), and the port.
    public static func socket(listening: Bool) -> (socket: Int32, port: Int) {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(socket, pointer, length)
                if listening { listen(socket, 1) }
                return getsockname(socket, pointer, &length)
            }
        }
        return (socket, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// A loopback port nobody listens on now (bound once by the kernel's choice, then released).
    public static func free() -> Int {
        let (socket, port) = socket(listening: false)
        close(socket)
        return port
    }
}
