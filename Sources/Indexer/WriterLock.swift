import Foundation

/// The index's one-writer lock: an `flock` on `<index>/write.lock`, with the holder's pid and command
/// written inside so that a second writer can say who holds it, and a line for how the holder is doing.
///
/// ```
/// 4242 spotlite watch
/// state the disk is full since 2026-11-23T10:00:00Z (No space left on device); retrying every 30 s
/// ```
///
/// The kernel drops the lock when the holder exits, even by SIGKILL, so a crash never leaves it stale.
final class WriterLock: @unchecked Sendable {
    private let descriptor: Int32
    let path: String
    private let purpose: String

    private init(descriptor: Int32, path: String, purpose: String) {
        self.descriptor = descriptor
        self.path = path
        self.purpose = purpose
    }

    deinit {
        // Blank the note first (in place, keeping its block), so that whoever takes the lock next is never
        // reported as us.
        let blank = [UInt8](repeating: UInt8(ascii: " "), count: Self.noteSize - 1) + [0x0A]
        _ = blank.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// Takes the lock, waiting up to `timeout` seconds (0: try once). Returns nil if another holds it.
    static func acquire(at path: String, timeout: TimeInterval, purpose: String) throws -> WriterLock? {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            if errno == EROFS || errno == EACCES || errno == EPERM {
                throw IndexerError(
                    .index,
                    "the index \((path as NSString).deletingLastPathComponent) is read-only to you (\(reason)); "
                        + "searches read it as it is, but bringing it up to date needs write access")
            }
            throw IndexerError(.index, "cannot open the index lock \(path): \(reason)")
        }
        let deadline = Date().addingTimeInterval(timeout)
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            if Date() >= deadline {
                close(descriptor)
                return nil
            }
            usleep(20_000)
        }
        let lock = WriterLock(descriptor: descriptor, path: path, purpose: purpose)
        lock.setState(nil)
        return lock
    }

    /// Whether the lock file is still the one at ``path``: a removed index directory (`rm -rf`) takes it away,
    /// and a second writer could then lock a new file in its place.
    var isIntact: Bool {
        guard let held = FileIdentity(descriptor: descriptor) else { return false }
        return FileIdentity(path: path) == held
    }

    /// The note's fixed size: always written whole, in place, so that rewriting it never frees or allocates a
    /// block — on a full disk it can still say so.
    static let noteSize = 512

    /// Writes how the holder is doing (nil: nothing to say) for ``holder(at:)`` to read.
    func setState(_ state: String?) {
        var note = "\(getpid()) \(purpose)\n"
        if let state { note += "state " + String(state.replacingOccurrences(of: "\n", with: " ").prefix(400)) + "\n" }
        var bytes = Array(note.utf8.prefix(Self.noteSize - 1))
        bytes += Array(repeating: UInt8(ascii: " "), count: Self.noteSize - 1 - bytes.count) + [0x0A]
        _ = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    }

    /// Who holds the lock, as written by the holder, if anyone does.
    static func holder(at path: String) -> Holder? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        // If we can take a shared lock at once, nobody holds the exclusive one.
        if flock(descriptor, LOCK_SH | LOCK_NB) == 0 {
            flock(descriptor, LOCK_UN)
            return nil
        }
        var buffer = [UInt8](repeating: 0, count: noteSize)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        let text = count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : ""
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let words = (lines.first ?? "").trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
        guard let first = words.first, let pid = Int32(first) else { return Holder(pid: 0, purpose: "unknown") }
        let state = lines.dropFirst().first { $0.hasPrefix("state ") }.map { String($0.dropFirst(6)) }
        return Holder(pid: pid, purpose: words.count > 1 ? String(words[1]) : "", state: state)
    }

    /// The process holding the lock, what for, and how it is doing.
    struct Holder: Sendable, Equatable {
        var pid: Int32
        var purpose: String
        var state: String?
    }
}
