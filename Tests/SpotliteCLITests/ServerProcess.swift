import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A real `spotlite serve` process on a free loopback port, and an HTTP/1.1 client for it over a plain socket (no
/// client library between the test and the bytes the server sends).
final class ServerProcess {
    let cli: CLI
    let process: Process
    let port: Int
    let log: String

    /// Starts `spotlite serve --listen 127.0.0.1:0` with `arguments`, and waits until it listens.
    init(_ cli: CLI, arguments: [String] = [], environment: [String: String] = [:]) throws {
        self.cli = cli
        log = cli.directory.file("serve-\(UUID().uuidString.prefix(6)).log")
        FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = ["serve", "--listen", "127.0.0.1:0"] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(cli.environment) { $1 }
            .merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = handle
        try process.run()
        var found: Int?
        let deadline = Date().addingTimeInterval(60)
        while found == nil && Date() < deadline && process.isRunning {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: "listening on http://127.0.0.1:") {
                found = Int(text[range.upperBound...].prefix { $0.isNumber })
            } else {
                usleep(20_000)
            }
        }
        guard let found else {
            process.terminate()
            throw Failure("serve did not start: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        }
        port = found
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    /// Sends `signal` and waits (up to `timeout` seconds) for the process to end; its exit status, or nil if it
    /// did not end.
    @discardableResult
    func stop(_ signal: Int32 = SIGTERM, timeout: Double = 30) -> Int32? {
        kill(process.processIdentifier, signal)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        return process.terminationStatus
    }

    /// A test that ends early (a failed `#require`, a thrown error) leaves no server behind.
    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// One request and its whole response.
    func request(
        _ method: String = "GET", _ path: String, headers: [String: String] = [:], body: Data? = nil,
        timeout: Double = 30
    ) throws -> HTTPResponse {
        let connection = try HTTPConnection(port: port, timeout: timeout)
        try connection.send(method: method, path: path, headers: headers, body: body)
        return try connection.readResponse()
    }

    func json(_ path: String, method: String = "GET", body: Any? = nil, headers: [String: String] = [:]) throws
        -> (status: Int, object: Any?)
    {
        let data = try body.map { try JSONSerialization.data(withJSONObject: $0) }
        var sent = headers
        if data != nil { sent["Content-Type"] = "application/json" }
        let response = try request(method, path, headers: sent, body: data)
        return (response.status, try? JSONSerialization.jsonObject(with: response.body))
    }

    /// Opens a subscription's event stream (with `Last-Event-ID`, or `?after=`, when given).
    func events(_ subscription: String, lastEventID: String? = nil, after: String? = nil) throws -> EventStream {
        let connection = try HTTPConnection(port: port, timeout: 30)
        var headers = ["Accept": "text/event-stream"]
        if let lastEventID { headers["Last-Event-ID"] = lastEventID }
        try connection.send(
            method: "GET", path: "/v1/subscriptions/\(subscription)/events" + (after.map { "?after=" + $0 } ?? ""),
            headers: headers, body: nil)
        let head = try connection.readHead()
        return EventStream(connection: connection, status: head.status, headers: head.headers)
    }
}

struct HTTPResponse {
    var status: Int
    var headers: [String: String]
    var body: Data
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// One Server-Sent Event.
struct SentEvent: Equatable {
    var id: String?
    var type: String
    var data: String
}

/// A response body of Server-Sent Events, read as they come.
final class EventStream {
    let connection: HTTPConnection
    let status: Int
    let headers: [String: String]
    private var pending = ""

    init(connection: HTTPConnection, status: Int, headers: [String: String]) {
        self.connection = connection
        self.status = status
        self.headers = headers
    }

    /// The next event (comments skipped), or nil if none comes within `timeout` seconds or the stream ends.
    func next(timeout: Double = 10) -> SentEvent? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let end = pending.range(of: "\n\n") {
                let block = String(pending[..<end.lowerBound])
                pending.removeSubrange(..<end.upperBound)
                var event = SentEvent(id: nil, type: "message", data: "")
                var isEvent = false
                for line in block.split(separator: "\n") {
                    if line.hasPrefix(":") || line.hasPrefix("retry:") { continue }
                    if line.hasPrefix("id: ") {
                        event.id = String(line.dropFirst(4))
                        isEvent = true
                    }
                    if line.hasPrefix("event: ") {
                        event.type = String(line.dropFirst(7))
                        isEvent = true
                    }
                    if line.hasPrefix("data: ") {
                        event.data = String(line.dropFirst(6))
                        isEvent = true
                    }
                }
                if isEvent { return event }
                continue
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0, let chunk = connection.readChunk(timeout: left) else { return nil }
            pending += chunk
        }
    }

    /// Every event that arrives until none comes for `quiet` seconds.
    func drain(quiet: Double = 1.5) -> [SentEvent] {
        var events: [SentEvent] = []
        while let event = next(timeout: quiet) { events.append(event) }
        return events
    }

    func close() { connection.close() }
}

/// A TCP connection to the server on loopback: requests out, responses (plain or chunked) in.
final class HTTPConnection {
    private let socket: Int32
    private let timeout: Double
    private var buffer: [UInt8] = []
    private var chunked = false
    private var chunkLeft = 0
    private var ended = false
    private var closed = false

    init(port: Int, timeout: Double) throws {
        self.timeout = timeout
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            // Through close(), once: the deinit that follows a thrown init would close the descriptor again, and a
            // second close hits whatever another test has been given since (a held port, a server's socket).
            close()
            throw ServerProcess.Failure("cannot connect to 127.0.0.1:\(port): \(reason)")
        }
    }

    deinit { close() }

    /// Closes the socket once: a second close could hit a descriptor another test has since been given.
    func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(socket)
    }

    func send(method: String, path: String, headers: [String: String], body: Data?) throws {
        // A Host of the test's own replaces the usual one.
        let host = headers.contains { $0.key.lowercased() == "host" } ? "" : "Host: 127.0.0.1\r\n"
        var text = "\(method) \(path) HTTP/1.1\r\n\(host)Connection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body { text += "Content-Length: \(body.count)\r\n" }
        text += "\r\n"
        var bytes = Array(text.utf8)
        if let body { bytes += body }
        try sendRaw(bytes)
    }

    /// Sends `bytes` as they are (part of a request, a byte at a time: what a slow client does).
    func sendRaw(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else { throw ServerProcess.Failure("send failed: \(String(cString: strerror(errno)))") }
            sent += count
        }
    }

    /// Whether the server closed the connection: the next read finds its end (within `timeout` seconds), after any
    /// bytes it sent before.
    func isClosedByServer(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !ended && deadline.timeIntervalSinceNow > 0 {
            buffer.removeAll()
            if !fill(timeout: deadline.timeIntervalSinceNow) && !ended { return false }
        }
        return ended
    }

    /// Reads more bytes into the buffer; false at the end of the stream or after `timeout` seconds.
    private func fill(timeout: Double) -> Bool {
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, Int32(max(1, timeout * 1_000))) > 0 else { return false }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = recv(socket, &chunk, chunk.count, 0)
        guard count > 0 else {
            // The end of the stream (0), or a reset by the server (ECONNRESET): either way it is over.
            ended = true
            return false
        }
        buffer += chunk[..<count]
        return true
    }

    func readHead() throws -> (status: Int, headers: [String: String]) {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let end = headEnd() {
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                let lines = head.components(separatedBy: "\r\n")
                let parts = lines.first?.split(separator: " ") ?? []
                guard parts.count >= 2, let status = Int(parts[1]) else {
                    throw ServerProcess.Failure("bad status line: \(lines.first ?? "")")
                }
                var headers: [String: String] = [:]
                for line in lines.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                        in: .whitespaces)
                }
                chunked = headers["transfer-encoding"]?.lowercased() == "chunked"
                return (status, headers)
            }
            guard fill(timeout: deadline.timeIntervalSinceNow) else {
                throw ServerProcess.Failure("no response head within \(timeout) s")
            }
        }
    }

    private func headEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4)
        where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        return nil
    }

    func readResponse() throws -> HTTPResponse {
        let head = try readHead()
        var body: [UInt8] = []
        if let length = head.headers["content-length"].flatMap(Int.init), !chunked {
            let deadline = Date().addingTimeInterval(timeout)
            while buffer.count < length && fill(timeout: deadline.timeIntervalSinceNow) {}
            body = Array(buffer.prefix(length))
        } else {
            while let chunk = readChunk(timeout: timeout) { body += Array(chunk.utf8) }
        }
        return HTTPResponse(status: head.status, headers: head.headers, body: Data(body))
    }

    /// The next piece of the body (de-chunked), or nil at its end or after `timeout` seconds of silence.
    func readChunk(timeout: Double) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        guard chunked else {
            if buffer.isEmpty && !fill(timeout: timeout) { return nil }
            defer { buffer.removeAll() }
            return String(decoding: buffer, as: UTF8.self)
        }
        while true {
            if chunkLeft > 0 {
                if buffer.isEmpty && !fill(timeout: deadline.timeIntervalSinceNow) { return nil }
                let take = min(chunkLeft, buffer.count)
                let text = String(decoding: buffer[..<take], as: UTF8.self)
                buffer.removeFirst(take)
                chunkLeft -= take
                if chunkLeft == 0 { chunkLeft = -2 }  // the CRLF after the chunk
                return text
            }
            if chunkLeft == -2 {
                while buffer.count < 2 { if !fill(timeout: deadline.timeIntervalSinceNow) { return nil } }
                buffer.removeFirst(2)
                chunkLeft = 0
            }
            // A chunk size line.
            while true {
                if let line = sizeLine() {
                    guard let size = Int(line, radix: 16) else { return nil }
                    if size == 0 { return nil }
                    chunkLeft = size
                    break
                }
                if !fill(timeout: deadline.timeIntervalSinceNow) { return nil }
            }
        }
    }

    private func sizeLine() -> String? {
        guard buffer.count >= 2 else { return nil }
        for index in 0..<(buffer.count - 1) where buffer[index] == 13 && buffer[index + 1] == 10 {
            let line = String(decoding: buffer[..<index], as: UTF8.self).split(separator: ";").first.map(String.init)
            buffer.removeFirst(index + 2)
            return line?.trimmingCharacters(in: .whitespaces)
        }
        return nil
    }
}
