import Foundation

/// The index's one-writer lock: an `flock` on `<index>/write.lock`, with the holder's pid and command
/// written inside so that a second writer can say who holds it.
///
/// The kernel drops the lock when the holder exits, even by SIGKILL, so a crash never leaves it stale.
final class WriterLock: Sendable {
    private let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        // Clear the note first, so that whoever takes the lock next is never reported as us.
        ftruncate(descriptor, 0)
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// Takes the lock, waiting up to `timeout` seconds (0: try once). Returns nil if another holds it.
    static func acquire(at path: String, timeout: TimeInterval, purpose: String) throws -> WriterLock? {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw IndexerError(.index, "cannot open the index lock \(path): \(String(cString: strerror(errno)))")
        }
        let deadline = Date().addingTimeInterval(timeout)
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            if Date() >= deadline {
                close(descriptor)
                return nil
            }
            usleep(20_000)
        }
        let note = "\(getpid()) \(purpose)\n"
        ftruncate(descriptor, 0)
        _ = note.withCString { pwrite(descriptor, $0, strlen($0), 0) }
        return WriterLock(descriptor: descriptor)
    }

    /// Who holds the lock, as written by the holder ("<pid> <purpose>"), if anyone does.
    static func holder(at path: String) -> (pid: Int32, purpose: String)? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        // If we can take a shared lock at once, nobody holds the exclusive one.
        if flock(descriptor, LOCK_SH | LOCK_NB) == 0 {
            flock(descriptor, LOCK_UN)
            return nil
        }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        let text = count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : ""
        let words = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ", maxSplits: 1)
        guard let first = words.first, let pid = Int32(first) else { return (0, "unknown") }
        return (pid, words.count > 1 ? String(words[1]) : "")
    }
}
