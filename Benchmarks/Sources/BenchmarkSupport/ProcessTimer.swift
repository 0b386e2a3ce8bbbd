import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a program to its end with `posix_spawn`, its output to /dev/null: what `hyperfine -N` times, without
/// Foundation's `Process` (which starts threads and pipes of its own).
public enum ProcessTimer {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public static func run(_ path: String, _ arguments: [String]) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw Failure(description: "cannot start \(path): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else {
            throw Failure(description: "\(path) \(arguments.joined(separator: " ")) ended with \(status)")
        }
    }
}
