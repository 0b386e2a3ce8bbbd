import Foundation

/// A program Spotlite runs beside itself: one of Xapian's replication tools (``IndexPublisher``, ``IndexReplica``).
///
/// It is started with `posix_spawn` in a process group of its own (a terminal's Ctrl-C reaches Spotlite, which then
/// stops it), with every signal's default action and an empty mask (ServiceLifecycle ignores SIGTERM and SIGINT to
/// catch them, and ignored signals outlive an exec), no descriptor of Spotlite's but stdin from `/dev/null` and its
/// output in `outputPath`, and, through util-linux's `setpriv --pdeathsig`, a SIGTERM when the thread that started it
/// ends: a Spotlite killed outright leaves no server holding its port.
final class ChildProcess: @unchecked Sendable {
    let pid: pid_t
    let outputPath: String
    private let lock = NSLock()
    private var status: Int32?

    /// Starts `program` (found on `PATH`) with `arguments`. The thread that calls this must outlive the child, or
    /// the child gets SIGTERM when it ends.
    init(program: String, arguments: [String], outputPath: String) throws(IndexerError) {
        guard let path = Self.find(program) else {
            throw IndexerError(
                .index,
                "\(program) is not installed; it comes with Xapian's tools (Debian: `apt-get install xapian-tools`)")
        }
        var argv = [path] + arguments
        if let setpriv = Self.find("setpriv") { argv = [setpriv, "--pdeathsig", "TERM", "--"] + argv }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        _ = Self.closeFrom3?(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t()
        sigfillset(&all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP))

        var child: pid_t = 0
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        let result = posix_spawn(&child, argv[0], &actions, &attributes, cArguments, environ)
        guard result == 0 else {
            throw IndexerError(.index, "cannot start \(program): \(String(cString: strerror(result)))")
        }
        pid = child
        self.outputPath = outputPath
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which its Swift module does not export:
    /// the child closes every descriptor above stderr before its exec. Spotlite opens its own with close-on-exec;
    /// this covers any a library opened without.
    private static let closeFrom3:
        (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
            guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
            return unsafeBitCast(
                symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
        }()

    /// The first directory on `PATH` (else `/usr/bin:/bin`) holding an executable `program`.
    static func find(_ program: String) -> String? {
        let search = ProcessInfo.processInfo.environment["PATH"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/bin:/bin"
        for directory in search.split(separator: ":") where !directory.isEmpty {
            let candidate = directory + "/" + program
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// Its exit status if it has ended (without waiting); a signal's death is 128 + the signal, as a shell says.
    func poll() -> Int32? { reap(options: WNOHANG) }

    /// Waits for it to end and returns its status.
    @discardableResult
    func wait() -> Int32 { reap(options: 0) ?? -1 }

    /// Reaps it. Only one thread reaps a child (its owner's), so the wait itself holds no lock: ``terminate()`` must
    /// get through while it blocks.
    private func reap(options: Int32) -> Int32? {
        if let known = lock.withLock({ status }) { return known }
        var raw: Int32 = 0
        var result: pid_t
        repeat { result = waitpid(pid, &raw, options) } while result < 0 && errno == EINTR
        guard result == pid else { return result < 0 ? -1 : nil }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Glibc's module does not export as functions.
        let signal = raw & 0x7f
        let ended = signal == 0 ? (raw >> 8) & 0xff : 128 + signal
        lock.withLock { status = ended }
        return ended
    }

    /// Sends SIGTERM to it and the processes it forked (its group), unless it has been reaped.
    func terminate() {
        lock.lock()
        defer { lock.unlock() }
        if status == nil { kill(-pid, SIGTERM) }
    }

    /// Its output's last line that says something (an error, usually), control characters shown as `?`, at most 300
    /// characters of it.
    func lastOutputLine() -> String? {
        guard let handle = FileHandle(forReadingAtPath: outputPath) else { return nil }
        defer { try? handle.close() }
        let size = (try? handle.seekToEnd()) ?? 0
        try? handle.seek(toOffset: size > 4096 ? size - 4096 : 0)
        let data = (try? handle.readToEnd()) ?? Data()
        let text = String(decoding: data, as: UTF8.self)
        guard let line = text.split(whereSeparator: \.isNewline).last(where: { !$0.allSatisfy(\.isWhitespace) })
        else { return nil }
        let visible = line.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : String($0) }.joined()
        return String(visible.prefix(300))
    }
}
