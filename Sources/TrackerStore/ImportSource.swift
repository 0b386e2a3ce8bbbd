import Foundation

/// Where an import reads its JSON Lines: a file (a regular file, a FIFO, `/dev/stdin`, a process substitution)
/// or standard input, read in chunks, line by line, within bounds: a line longer than ``maximumLineBytes`` or an
/// input longer than ``maximumInputBytes`` fails the import with a clear error instead of filling memory.
public final class ImportSource {
    /// The longest line an import takes: far above any real item, far below what would exhaust memory.
    public static let maximumLineBytes = 64 << 20
    /// The most an import reads in all (it is one transaction, held in memory until it commits); split larger files.
    public static let maximumInputBytes = 2 << 30

    private let descriptor: Int32
    private let closesDescriptor: Bool
    /// How the input is named in errors (`standard input`, or the path).
    public let name: String
    let maximumLine: Int
    let maximumInput: Int
    /// The input's size when it is a regular file (for progress), else nil.
    public private(set) var size: Int?
    /// The bytes ``forEachLine(_:)`` has read so far.
    public private(set) var bytesRead = 0

    /// Opens `path`, or standard input for `-`. Throws ``StoreError/Code-swift.struct/invalidInput`` naming the
    /// reason (no such file, a directory, no permission).
    public init(path: String, maximumLine: Int = maximumLineBytes, maximumInput: Int = maximumInputBytes)
        throws(StoreError)
    {
        self.maximumLine = maximumLine
        self.maximumInput = maximumInput
        if path == "-" {
            descriptor = STDIN_FILENO
            closesDescriptor = false
            name = "standard input"
        } else {
            var status = stat()
            if stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
                throw StoreError(.invalidInput, "cannot import \(path): it is a directory; give a JSON Lines file")
            }
            let opened = open(path, O_RDONLY | O_CLOEXEC)
            guard opened >= 0 else {
                throw StoreError(.invalidInput, "cannot read \(path): \(String(cString: strerror(errno)))")
            }
            descriptor = opened
            closesDescriptor = true
            name = path
            if fstat(opened, &status) == 0, status.st_mode & S_IFMT == S_IFREG { size = Int(status.st_size) }
        }
    }

    deinit {
        if closesDescriptor { close(descriptor) }
    }

    /// Calls `body` with each line's 1-based number and bytes (without the newline, nor a CR before it).
    ///
    /// Throws ``StoreError/Code-swift.struct/invalidInput`` for a read error (a closed standard input, a
    /// directory on standard input), a line too long, or an input too large; rethrows what `body` throws.
    public func forEachLine(_ body: (Int, ArraySlice<UInt8>) throws -> Void) throws {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var lineNumber = 0
        var total = 0
        while true {
            let count: Int
            if !prefetched.isEmpty {
                // What ``head(_:)`` read first (never more than the buffer holds).
                count = prefetched.count
                buffer.replaceSubrange(0..<count, with: prefetched)
                prefetched = []
            } else {
                count = try readChunk(into: &buffer)
            }
            if count == 0 { break }
            total += count
            bytesRead = total
            if total > maximumInput {
                throw tooLarge
            }
            var start = 0
            while let newline = buffer[start..<count].firstIndex(of: 0x0A) {
                lineNumber += 1
                if pending.isEmpty {
                    try body(lineNumber, Self.trimmingCR(buffer[start..<newline]))
                } else {
                    pending += buffer[start..<newline]
                    try checkLength(pending.count, lineNumber)
                    try body(lineNumber, Self.trimmingCR(pending[...]))
                    pending.removeAll(keepingCapacity: true)
                }
                start = newline + 1
            }
            pending += buffer[start..<count]
            try checkLength(pending.count, lineNumber + 1)
        }
        if !pending.isEmpty {
            try body(lineNumber + 1, Self.trimmingCR(pending[...]))
        }
    }

    /// The error for an input over ``maximumInput``.
    private var tooLarge: StoreError {
        StoreError(
            .invalidInput,
            "\(name) is larger than \(Self.size(maximumInput)), the most one import takes; split it into several files")
    }

    /// Bytes read by ``head(_:)``, handed to the next reader first.
    private var prefetched: [UInt8] = []

    /// The input's first bytes, up to `count` (at most 1 MiB), to tell its format; they are read again by
    /// ``forEachLine(_:)`` or ``readAll()``, so this works on standard input and pipes too.
    public func head(_ count: Int) throws(StoreError) -> [UInt8] {
        let wanted = min(count, 1 << 20)
        var buffer = [UInt8](repeating: 0, count: wanted)
        while prefetched.count < wanted {
            let read = try readChunk(into: &buffer, limit: wanted - prefetched.count)
            if read == 0 { break }
            prefetched += buffer[0..<read]
        }
        return prefetched
    }

    /// The whole input, for formats read as one document (a tracker's JSON or CSV export), within
    /// ``maximumInputBytes``.
    public func readAll() throws(StoreError) -> Data {
        var data = Data(prefetched)
        prefetched = []
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = try readChunk(into: &buffer)
            if count == 0 { break }
            data.append(contentsOf: buffer[0..<count])
            bytesRead = data.count
            if data.count > maximumInput {
                throw tooLarge
            }
        }
        return data
    }

    /// One `read` into `buffer` (of at most `limit` bytes), retried on EINTR; 0 at the end of the input.
    private func readChunk(into buffer: inout [UInt8], limit: Int = .max) throws(StoreError) -> Int {
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, min($0.count, limit)) }
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw StoreError(.invalidInput, "cannot read \(name): \(Self.readError(errno))")
        }
    }

    private func checkLength(_ length: Int, _ line: Int) throws {
        if length > maximumLine {
            throw StoreError(
                .invalidInput,
                "line \(line) of \(name) is longer than \(Self.size(maximumLine)), the longest line an import takes; "
                    + "nothing was imported")
        }
    }

    /// `64 MiB`, `2048 MiB`, or bytes below a mebibyte.
    static func size(_ bytes: Int) -> String {
        bytes >= 1 << 20 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
    }

    private static func trimmingCR(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        line.last == 0x0D ? line.dropLast() : line
    }

    private static func readError(_ code: Int32) -> String {
        switch code {
        case EBADF: return "it is closed (\(String(cString: strerror(code))))"
        case EISDIR: return "it is a directory"
        default: return String(cString: strerror(code))
        }
    }
}
