import Foundation
import TestSupport

/// Runs a bash script in a private user and mount namespace (`unshare -rm`), where it may mount a small tmpfs or
/// a read-only bind mount of the test's own directories: real full disks and real read-only mounts, made and
/// gone with the script, touching nothing outside the test's directory.
enum Namespace {
    /// Runs `script` with `$spotlite` set to the binary and the CLI's environment; its output and status.
    static func run(_ script: String, cli: CLI, environment: [String: String] = [:]) -> ProcessResult {
        let file = cli.directory.file("script-\(UUID().uuidString.prefix(8)).sh")
        try? Data(("set -u\n" + script).utf8).write(to: URL(fileURLWithPath: file))
        var env = cli.environment
        env["spotlite"] = CLI.binary
        for (key, value) in environment { env[key] = value }
        return TestSupport.run(["unshare", "--user", "--map-root-user", "--mount", "bash", file], environment: env)
    }
}
