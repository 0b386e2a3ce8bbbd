import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads standard input for commands that take records from it (`resolve -`), within a bound.
enum Input {
    /// The most a command reads from standard input.
    static let maximumBytes = 64 << 20

    /// The records on standard input, split at `separator` (newline or NUL), blank ones and a CR before a newline
    /// dropped. Throws a ``CLIError`` (status 2) for a closed or unreadable stdin, or one over ``maximumBytes``.
    static func records(separatedBy separator: UInt8) throws -> [String] {
        if Output.closedAtStart.contains(STDIN_FILENO) {
            throw CLIError("cannot read standard input: it is closed; pipe the URIs in, one a line", status: .usage)
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                let reason = errno == EISDIR ? "it is a directory" : String(cString: strerror(errno))
                throw CLIError("cannot read standard input: \(reason)", status: .usage)
            }
            if count == 0 { break }
            bytes += chunk[..<count]
            if bytes.count > maximumBytes {
                throw CLIError(
                    "standard input is larger than \(maximumBytes >> 20) MiB; give the URIs in several runs", status: .usage)
            }
        }
        return bytes.split(separator: separator).compactMap { record in
            var record = record
            if separator == 0x0A, record.last == 0x0D { record = record.dropLast() }
            let text = String(decoding: record, as: UTF8.self).trimmingCharacters(in: .whitespaces)
            return text.isEmpty ? nil : text
        }
    }
}
