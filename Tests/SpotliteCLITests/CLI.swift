import Foundation
import TestSupport
import Testing

/// The real `spotlite` binary, run against a store and an index in a temporary directory.
struct CLI {
    let directory = TemporaryDirectory("cli")

    var storePath: String { directory.file("tracker.sqlite") }
    var indexPath: String { directory.file("index") }

    /// The binary SwiftPM built beside the test bundle.
    static let binary: String = {
        if let path = ProcessInfo.processInfo.environment["SPOTLITE_BIN"] { return path }
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
                "spotlite"
            ).path,
            Bundle.main.bundleURL.appendingPathComponent("spotlite").path,
            Repository.root + "/.build/debug/spotlite",
        ]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            fatalError("the spotlite binary is not built; run `swift build` first (looked in \(candidates))")
        }
        return found
    }()

    var environment: [String: String] {
        [
            "SPOTLITE_STORE": storePath, "SPOTLITE_INDEX": indexPath,
            "XDG_DATA_HOME": directory.file("data"), "XDG_CACHE_HOME": directory.file("cache"),
            // The named stores (stores.toml) are the test's own, never the user's.
            "XDG_CONFIG_HOME": directory.file("config"),
        ]
    }

    @discardableResult
    func callAsFunction(_ arguments: String..., input: Data? = nil) -> ProcessResult {
        TestSupport.run([Self.binary] + arguments, input: input, environment: environment)
    }

    @discardableResult
    func run(arguments: [String], input: Data? = nil) -> ProcessResult {
        TestSupport.run([Self.binary] + arguments, input: input, environment: environment)
    }

    /// Starts the binary in the background (stdin and stdout at /dev/null, stderr to `stderr` if given), for tests
    /// that signal it or watch it run.
    func start(_ arguments: [String], stderr: FileHandle? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        if let stderr { process.standardError = stderr }
        try process.run()
        return process
    }

    /// Runs SQL through the sqlite3 command-line shell (foreign keys off, as in any plain session). A busy
    /// timeout, as any careful client sets, so that it waits for concurrent openers instead of failing.
    @discardableResult
    func sqlite(_ sql: String) -> ProcessResult {
        TestSupport.run(["sqlite3", "-bail", "-cmd", ".timeout 10000", storePath], input: Data(sql.utf8))
    }

    /// Runs a shell pipeline with `$spotlite` set to the binary.
    func shell(_ script: String) -> ProcessResult {
        var env = environment
        env["spotlite"] = Self.binary
        return TestSupport.run(["bash", "-c", "set -o pipefail; " + script], environment: env)
    }

    /// A store with the hand-written samples, indexed: a copy of one the binary made once for the whole test run (its
    /// `init`, `import` and `index`), so each test pays a copy, not three processes. When that store cannot be made,
    /// the test that asked for it records why and goes on with an empty directory (its own expectations fail): one
    /// broken fixture fails the tests that use it, not the run.
    static func withSamples() -> CLI {
        let cli = CLI()
        do {
            let template = try samplesTemplate.get()
            for name in try FileManager.default.contentsOfDirectory(atPath: template.path) {
                try FileManager.default.copyItem(atPath: template.file(name), toPath: cli.directory.file(name))
            }
        } catch {
            Issue.record("the samples' store could not be made: \(error)")
        }
        return cli
    }

    /// The directory of the samples' store (`tracker.sqlite`) and index (`index/`), made by the binary once per run.
    private static let samplesTemplate: Result<TemporaryDirectory, FixtureFailure> = {
        let cli = CLI()
        for arguments in [["init"], ["import", Repository.portfolio], ["index"]] {
            let result = cli.run(arguments: arguments)
            guard result.status == 0 else {
                return .failure(
                    FixtureFailure(description: "spotlite \(arguments.joined(separator: " ")): \(result.stderr)"))
            }
        }
        // Only the store and its index: the XDG directories of the run that made them are not the tests'.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: cli.directory.path)) ?? []
        where !name.hasPrefix("tracker.sqlite") && name != "index" {
            try? FileManager.default.removeItem(atPath: cli.directory.file(name))
        }
        return .success(cli.directory)
    }()

    struct FixtureFailure: Error, CustomStringConvertible {
        var description: String
    }

    func json(_ result: ProcessResult) -> Any? {
        try? JSONSerialization.jsonObject(with: result.stdoutData)
    }
}

/// A step of a shared fixture that must hold: when it does not, the test being run records why (with the fixture's
/// own message) and goes on to fail its own expectations, where a `precondition` would end the whole run.
func expectFixture(
    _ condition: Bool, _ message: @autoclosure () -> String = "", sourceLocation: SourceLocation = #_sourceLocation
) {
    if !condition { Issue.record("a fixture step failed: \(message())", sourceLocation: sourceLocation) }
}
