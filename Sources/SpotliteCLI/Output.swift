import Foundation
import Indexer
import TrackerStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes to stdout and stderr. One place, so that every command prints the same way and no write error goes
/// unnoticed.
///
/// Stdout is buffered and written with `write(2)`, checked: a full disk (`ENOSPC`), a closed descriptor or any
/// other failure becomes one line on stderr and exit status 2 (docs/exit-codes-and-files.md), never a crash and never a
/// silent success. A reader that goes away early (`| head`, `EPIPE`) is not an error: the command stops writing
/// and ends quietly with the status it would have had.
enum Output {
    /// Bytes waiting for stdout.
    nonisolated(unsafe) private static var buffer: [UInt8] = []
    /// The first write error, once one happened: later writes are dropped.
    nonisolated(unsafe) private(set) static var failure: Int32?
    /// Buffered bytes past which ``line(_:)`` writes them out.
    static let bufferLimit = 1 << 16

    /// Whether stdout's reader went away (`EPIPE`): a long command may stop producing.
    static var readerIsGone: Bool { failure == EPIPE }

    /// Standard streams that were closed when the process started (`<&-`, `>&-`).
    nonisolated(unsafe) private(set) static var closedAtStart: Set<Int32> = []

    /// Prepares the standard streams before anything is opened: a closed stdin, stdout or stderr gets `/dev/null`
    /// in its place, so that no file the command opens later (the store!) takes descriptor 0, 1 or 2 and is
    /// written to as output; a closed stdout then fails every write as `EBADF`, and a closed stdin is an error
    /// for `import -`. Writing to a closed pipe must fail with `EPIPE`, not kill the process with `SIGPIPE`.
    static func prepareStandardStreams() {
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(descriptor, F_GETFD) == -1 {
            closedAtStart.insert(descriptor)
            let placeholder = open("/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY)
            if placeholder >= 0 && placeholder != descriptor {
                dup2(placeholder, descriptor)
                close(placeholder)
            }
        }
        if closedAtStart.contains(STDOUT_FILENO) { failure = EBADF }
        signal(SIGPIPE, SIG_IGN)
    }

    /// A line on stdout. Control characters in it (``VisibleText``) are written as visible escapes, newlines and
    /// tabs aside: text from the store never reaches the terminal as a control sequence, whichever printer forgot to
    /// escape it. Printers escape the one-line fields they show (a title in a column) themselves.
    static func line(_ text: String) {
        raw(VisibleText.escaped(text, keepingLineBreaks: true))
        buffer.append(0x0A)
        if buffer.count >= bufferLimit { flush() }
    }

    /// A line on stdout with the terminal's own styles (``Terminal/bold(_:)``): the caller has made every part of it
    /// that it did not write itself visible (``VisibleText/escaped(_:keepingLineBreaks:)``).
    static func styledLine(_ text: String) {
        raw(text)
        buffer.append(0x0A)
        if buffer.count >= bufferLimit { flush() }
    }

    /// A record on stdout, ended by a newline or, for `xargs -0`, a NUL byte.
    static func record(_ text: String, nullTerminated: Bool) {
        if nullTerminated {
            raw(VisibleText.escaped(text, keepingLineBreaks: true))
            buffer.append(0)
            if buffer.count >= bufferLimit { flush() }
        } else {
            line(text)
        }
    }

    /// `text` on stdout as it is (no newline).
    static func raw(_ text: String) {
        guard failure == nil else { return }
        buffer.append(contentsOf: text.utf8)
    }

    /// Writes a large output (an export) line by line, throwing at the first failure so that the command stops
    /// producing at once: ``CLIError`` with status 2 for a real failure, ``ExitQuietly`` when the reader left.
    static func streamLine(_ text: String) throws {
        line(text)
        try check()
    }

    /// Whether the write failure was already thrown as an error (and so will be reported by whoever catches it).
    nonisolated(unsafe) private(set) static var failureThrown = false

    /// Throws what ``streamLine(_:)`` throws if a write has failed.
    static func check() throws {
        guard let failure else { return }
        if failure == EPIPE { throw ExitQuietly() }
        failureThrown = true
        throw writeError(failure)
    }

    /// A progress line on stderr when it is a terminal, rewritten in place; nil clears it. Pipes and logs get
    /// nothing: the command's last line says what was done.
    static func progress(_ text: String?) {
        guard isatty(STDERR_FILENO) == 1 else { return }
        flush()
        _ = writeAll(STDERR_FILENO, Array(("\r\u{1B}[K" + (text ?? "")).utf8)[...])
    }

    /// Said at once when a search must first apply a large backlog of changes (SearchOptions.onLargeBacklog).
    static let largeBacklogNote: @Sendable (IndexProgress) -> Void = { progress in
        let doing = progress.work == .rebuilding ? "rebuilding it" : "applying them"
        note(
            "spotlite: the index is \(count(progress.backlog, "change")) behind the store; \(doing) before searching "
                + "(`spotlite watch` keeps it current)")
    }

    /// A line on stderr (warnings, notes, errors). Stdout is written first, so the two interleave as printed. It is
    /// one line whatever it quotes: control characters, line breaks among them, are written as visible escapes.
    static func note(_ text: String) {
        flush()
        let bytes = Array((VisibleText.escaped(text) + "\n").utf8)
        _ = writeAll(STDERR_FILENO, bytes[...])
    }

    /// Writes what is buffered for stdout; records the first failure.
    static func flush() {
        guard !buffer.isEmpty else { return }
        defer { buffer.removeAll(keepingCapacity: true) }
        guard failure == nil else { return }
        if let error = writeAll(STDOUT_FILENO, buffer[...]) { failure = error }
    }

    /// The error for a failed write to stdout, in the CLI's terms.
    static func writeError(_ code: Int32) -> CLIError {
        CLIError(
            "cannot write the output: \(String(cString: strerror(code))); nothing more was written", status: .usage)
    }

    /// Writes every byte, retrying short writes and interruptions; returns the errno of a failure.
    private static func writeAll(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) -> Int32? {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if written == 0 { return EIO }
            offset += written
        }
        return nil
    }
}

/// Thrown when stdout's reader went away: the command ends with no message.
struct ExitQuietly: Error {}

/// `1 change`, `2 changes`: a count with its noun, singular or plural.
func count(_ number: Int, _ noun: String, plural: String? = nil) -> String {
    "\(number) \(number == 1 ? noun : plural ?? noun + "s")"
}
