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
        let bytes = try readAll(limit: maximumBytes, what: "the URIs", hint: "pipe the URIs in, one a line")
        return bytes.split(separator: separator).compactMap { record in
            var record = record
            if separator == 0x0A, record.last == 0x0D { record = record.dropLast() }
            let text = String(decoding: record, as: UTF8.self).trimmingCharacters(in: .whitespaces)
            return text.isEmpty ? nil : text
        }
    }

    /// Standard input as text, at most `limit` bytes of valid UTF-8 (a message's text: `comment URI -`), its
    /// trailing line breaks dropped as the shell's `$(…)` drops them: `echo text |` means "text".
    static func text(limit: Int) throws -> String {
        var bytes = try readAll(limit: limit, what: "the text", hint: "pipe the text in")
        while let last = bytes.last, last == 0x0A || last == 0x0D { bytes.removeLast() }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CLIError("standard input is not UTF-8 text", status: .usage)
        }
        return text
    }

    /// Everything on standard input, refused past `limit` bytes.
    private static func readAll(limit: Int, what: String, hint: String) throws -> [UInt8] {
        if Output.closedAtStart.contains(STDIN_FILENO) {
            throw CLIError("cannot read standard input: it is closed; \(hint)", status: .usage)
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
            if bytes.count > limit {
                let size = limit >= 1 << 20 ? "\(limit >> 20) MiB" : "\(limit >> 10) KiB"
                let remedy = limit == maximumBytes ? "give \(what) in several runs" : "shorten \(what)"
                throw CLIError("standard input is larger than \(size); \(remedy)", status: .usage)
            }
        }
        return bytes
    }
}
