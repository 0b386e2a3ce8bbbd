import Foundation

/// Wakes the watcher when a commit may have reached the store, without polling the CPU: inotify on the
/// store's directory, filtered to the database file and its WAL (SQLite writes a commit to one or the other,
/// whichever process makes it). A pipe wakes it to stop.
///
/// Without inotify (the kernel's limit on instances reached, a filesystem that has none) ``wait(timeout:)``
/// degrades to a timed poll: the watcher then checks the store every ``fallbackInterval``.
final class ChangeNotifier: @unchecked Sendable {
    enum Wake: Equatable {
        /// The database or its WAL was written.
        case changed
        /// Nothing happened for the whole timeout.
        case timedOut
        /// ``stop()`` was called.
        case stopped
    }

    /// How often a notifier without inotify wakes to check.
    static let fallbackInterval: TimeInterval = 0.05

    private let inotify: Int32
    private let stopPipe: (read: Int32, write: Int32)
    private let names: Set<String>
    /// The watch on the index directory, which wakes the watcher when the directory or its lock goes.
    private var indexWatch: Int32 = -1
    /// Whether file events are watched (false: timed polling only).
    var isWatchingFiles: Bool { inotify >= 0 }

    /// Watches the store's files; a store reached through a symbolic link is watched where the link points, since
    /// SQLite writes the real file's directory (and its `-wal` beside it).
    init(storePath: String, indexRoot: String? = nil) throws {
        let url = URL(fileURLWithPath: storePath).standardizedFileURL.resolvingSymlinksInPath()
        let file = url.lastPathComponent
        names = [file, file + "-wal", file + "-journal"]
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            throw IndexerError(.index, "cannot create the watcher's wake pipe: \(String(cString: strerror(errno)))")
        }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        stopPipe = (fds[0], fds[1])
        var descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        if descriptor >= 0 {
            let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO | IN_DELETE)
            if inotify_add_watch(descriptor, url.deletingLastPathComponent().path, mask) < 0 {
                close(descriptor)
                descriptor = -1
            }
        }
        inotify = descriptor
        if let indexRoot { watchIndexDirectory(indexRoot) }
    }

    /// Also wakes when the directory at `root` is removed or moved, or its `write.lock` is: a watcher then makes it
    /// again. Call again after that, for the new directory.
    func watchIndexDirectory(_ root: String) {
        guard inotify >= 0 else { return }
        let mask = UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_DELETE | IN_MOVED_FROM)
        indexWatch = inotify_add_watch(inotify, root, mask)
    }

    deinit {
        if inotify >= 0 { close(inotify) }
        close(stopPipe.read)
        close(stopPipe.write)
    }

    /// Asks ``wait(timeout:)`` to return ``Wake/stopped``, now and from then on. Safe from any thread.
    func stop() {
        var byte: UInt8 = 1
        _ = write(stopPipe.write, &byte, 1)
    }

    /// Whether ``stop()`` has been called.
    var isStopped: Bool {
        var fds = [pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0)]
        return poll(&fds, 1, 0) > 0
    }

    /// Blocks until the store's files change, `timeout` passes, or ``stop()`` is called.
    func wait(timeout: TimeInterval) -> Wake {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return .timedOut }
            var fds = [pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0)]
            if inotify >= 0 { fds.append(pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)) }
            let interval = inotify >= 0 ? remaining : min(remaining, Self.fallbackInterval)
            let ready = poll(&fds, nfds_t(fds.count), Int32((interval * 1000).rounded(.up)))
            if ready < 0 {
                if errno == EINTR { continue }
                return .timedOut
            }
            if fds[0].revents != 0 { return .stopped }
            if inotify < 0 { return ready == 0 && remaining > Self.fallbackInterval ? .changed : .timedOut }
            if fds[1].revents != 0 && drainEvents() { return .changed }
        }
    }

    /// Reads every queued inotify event; true if one concerns the store's files.
    private func drainEvents() -> Bool {
        var relevant = false
        let size = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let count = read(inotify, buffer, size)
            if count <= 0 { return relevant }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                let nameStart = offset + MemoryLayout<inotify_event>.size
                let name =
                    event.len > 0
                    ? String(cString: buffer.advanced(by: nameStart).assumingMemoryBound(to: CChar.self)) : ""
                if indexWatch >= 0 && event.wd == indexWatch {
                    if event.mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 || name == "write.lock" {
                        relevant = true
                    }
                } else if names.contains(name) {
                    relevant = true
                }
                if event.mask & UInt32(IN_Q_OVERFLOW) != 0 { relevant = true }
                offset = nameStart + Int(event.len)
            }
        }
    }
}
