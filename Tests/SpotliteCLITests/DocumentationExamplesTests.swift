import Foundation
import TestSupport
import Testing

/// Every example of the manual's pages that show a command and its output — the commands, the query language,
/// watch, the service, several stores and messages — run on samples/, prints exactly what the page shows (the
/// service's against a real `spotlite serve`). When a change to the output is intended, run the tests with SPOTLITE_UPDATE_DOCS=1 and review
/// the pages' diff.
@Suite struct DocumentationExamplesTests {
    struct Example {
        var command: String
        var expected: String
    }

    static let queryLanguage = Repository.root + "/docs/query-language.md"
    static let commands = Repository.root + "/docs/commands.md"
    static let service = Repository.root + "/docs/service.md"
    static let storesAndMessages = Repository.root + "/docs/stores-and-messages.md"
    static let watch = Repository.root + "/docs/watch.md"

    static var updating: Bool { ProcessInfo.processInfo.environment["SPOTLITE_UPDATE_DOCS"] == "1" }

    /// The lines of the page's console blocks that begin with `prompt`, each with the lines shown after it; with
    /// `outputs`, the page with each example's lines replaced by its output instead.
    static func examples(
        in page: String, prompt: String = "$ spotlite ", replacingWith outputs: [String]? = nil
    ) throws -> (examples: [Example], page: String) {
        let text = try String(contentsOfFile: page, encoding: .utf8)
        var examples: [Example] = []
        var rewritten: [Substring] = []
        var inBlock = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "```console" || line == "```" { inBlock = line != "```" }
            if inBlock && line.hasPrefix(prompt) {
                examples.append(Example(command: String(line.dropFirst(2)), expected: ""))
                if let outputs {
                    rewritten +=
                        [line]
                        + outputs[examples.count - 1].split(separator: "\n", omittingEmptySubsequences: false)
                        .dropLast()
                }
                continue
            } else if inBlock && line != "```console" && !examples.isEmpty {
                examples[examples.count - 1].expected += line + "\n"
                continue
            }
            rewritten.append(line)
        }
        return (examples, rewritten.joined(separator: "\n"))
    }

    /// The README's tour, run in order in one shell on a fresh default store from the repository's directory,
    /// prints what it shows ("…" in a shown line stands for any text; a line of "…" alone for the rest); its writing
    /// examples run without a failure and leave the samples' store as it was.
    @Test func theReadmeTourPrintsWhatItShowsAndItsExamplesLeaveTheSamplesAlone() throws {
        let readme = Repository.root + "/README.md"
        let examples = try Self.examples(in: readme, prompt: "$ ").examples
        #expect(examples.count == 5)
        let directory = TemporaryDirectory("readme")
        let environment = [
            "XDG_DATA_HOME": directory.file("data"), "XDG_CACHE_HOME": directory.file("cache"),
            "XDG_CONFIG_HOME": directory.file("config"), "TZ": "UTC", "COLUMNS": "100",
        ]
        var outputs = Self.runInOneShell(
            examples, environment: environment,
            replacing: [
                ("/home/me/.local/share", directory.file("data")), ("/home/me/.cache", directory.file("cache")),
            ], directory: Repository.root)
        let uuid = outputs.first?.split(separator: "\n").dropFirst().first?.split(separator: "/").last.map(String.init)
        outputs = outputs.map { $0.replacingOccurrences(of: uuid ?? "-", with: "2ca4d0c0-81f4-4216-823a-104a32f4c87e") }
        for (example, output) in zip(examples, outputs) {
            #expect(Self.matches(output, shown: example.expected), "README: \(example.command)\n\(output)")
        }
        // The writing examples, on their scratch store.
        let text = try String(contentsOfFile: readme, encoding: .utf8)
        let block = try #require(
            text.components(separatedBy: "```sh\n").map { $0.components(separatedBy: "```")[0] }
                .first { $0.contains("spotlite add project") })
        var shell = environment
        let binaries = URL(fileURLWithPath: CLI.binary).deletingLastPathComponent().path
        shell["PATH"] = binaries + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let script = "set -e -o pipefail\n" + block.replacingOccurrences(of: "/tmp/", with: directory.file("") + "/")
        let written = TestSupport.run(["bash", "-c", script], environment: shell, directory: directory.path)
        #expect(written.status == 0, "\(written.stdout)\n\(written.stderr)")
        #expect(written.stdout.contains("Sand and varnish the hull"))
        let after = TestSupport.run(
            [CLI.binary, "search", "leaking", "tap", "--format", "ids"], environment: environment)
        #expect(after.stdoutLines.count == 2)
        let boat = TestSupport.run([CLI.binary, "search", "varnish", "--format", "ids"], environment: environment)
        #expect(boat.status == 1 && boat.stdoutLines.isEmpty)
    }

    /// Whether `output` is what a page shows: line for line, "…" in a shown line standing for any text, and a line
    /// that is only "…" (indented or not) for all the lines left.
    static func matches(_ output: String, shown: String) -> Bool {
        let actual = output.split(separator: "\n", omittingEmptySubsequences: false)
        let expected = shown.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, line) in expected.enumerated() {
            if line.trimmingCharacters(in: .whitespaces) == "…" { return true }
            guard index < actual.count else { return false }
            let pieces = line.components(separatedBy: "…")
            if pieces.count == 1 {
                guard actual[index] == line else { return false }
                continue
            }
            var rest = Substring(actual[index])
            for (number, piece) in pieces.enumerated() {
                if number == 0 {
                    guard rest.hasPrefix(piece) else { return false }
                    rest = rest.dropFirst(piece.count)
                } else if number == pieces.count - 1 {
                    guard rest.hasSuffix(piece) else { return false }
                } else {
                    guard let found = rest.range(of: piece) else { return false }
                    rest = rest[found.upperBound...]
                }
            }
        }
        return actual.count == expected.count
    }

    /// The tables docs/import.md lets a writer touch are the store's, column for column, and its `sqlite3`
    /// example writes an item that is then found.
    @Test func theDocumentedTablesAreTheStoresAndItsExampleWorks() throws {
        let page = try #require(
            try String(contentsOfFile: Repository.root + "/docs/import.md", encoding: .utf8)
                .components(separatedBy: "## Writing the store directly").last)
        let cli = CLI.withSamples()
        var tables = 0
        for line in page.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let table = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let documented = Set(
                cells[1].components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map {
                    String($0.element)
                })
            let actual = Set(cli.sqlite("SELECT name FROM pragma_table_info('\(table)');").stdoutLines)
            #expect(!actual.isEmpty && documented == actual, "\(table): documented \(documented), store \(actual)")
            tables += 1
        }
        #expect(tables == 5)
        let block = try #require(page.components(separatedBy: "```sh\n").last?.components(separatedBy: "```").first)
        let sql = try #require(block.components(separatedBy: "\"").dropFirst().first)
        #expect(cli.sqlite(sql).status == 0)
        #expect(cli("search", "oil", "gate", "--format", "ids").stdoutLines.count == 1)
    }

    /// Each `$ spotlite …` line of the page runs on its own against the samples.
    @Test(arguments: [(queryLanguage, 20), (commands, 1)])
    func everyCommandExamplePrintsWhatThePageShows(page: String, atLeast: Int) throws {
        let examples = try Self.examples(in: page).examples
        #expect(examples.count >= atLeast)
        let cli = CLI.withSamples()
        let uuid: String
        if case .string(let value)? = try JSONNode.parse(cli("status", "--format", "json").stdoutData)["store_uuid"] {
            uuid = value
        } else {
            Issue.record("no store UUID")
            return
        }
        var environment = cli.environment
        environment["TZ"] = "UTC"
        environment["COLUMNS"] = "100"
        var outputs: [String] = []
        for example in examples {
            let command =
                CLI.binary
                + example.command.dropFirst("spotlite".count).replacingOccurrences(of: "<store-uuid>", with: uuid)
                + " 2>&1"
            let result = TestSupport.run(["bash", "-c", command], environment: environment)
            outputs.append(result.stdout.replacingOccurrences(of: uuid, with: "<store-uuid>"))
        }
        if Self.updating {
            try Self.examples(in: page, replacingWith: outputs).page.write(
                toFile: page, atomically: true, encoding: .utf8)
            return
        }
        for (example, output) in zip(examples, outputs) {
            #expect(
                output == example.expected,
                "example of the manual: \(example.command); rerun with SPOTLITE_UPDATE_DOCS=1 to accept")
        }
    }

    /// The section's `$ …` lines run in order in one shell (so `id=$(…)` carries over), with `spotlite` on the PATH,
    /// against a server on samples/: its address, the store's path and UUID are put where the page has
    /// `127.0.0.1:7700`, `~/.local/share/spotlite/tracker.sqlite` and `<store-uuid>`, and back in the output.
    @Test func everyServiceExamplePrintsWhatThePageShows() throws {
        let examples = try Self.examples(in: Self.service, prompt: "$ ").examples
        #expect(examples.count >= 6)
        let cli = CLI.withSamples()
        let uuid = try #require(
            cli.json(cli("status", "--format", "json")).flatMap { ($0 as? [String: Any])?["store_uuid"] as? String })
        let server = try ServerProcess(cli)
        let address = "127.0.0.1:\(server.port)"
        let outputs = Self.runInOneShell(
            examples, environment: cli.environment,
            replacing: [
                ("127.0.0.1:7700", address), ("~/.local/share/spotlite/tracker.sqlite", cli.storePath),
                ("<store-uuid>", uuid),
            ])
        #expect(server.stop() == 0)
        try #require(outputs.count == examples.count, "\(outputs)")
        if Self.updating {
            try Self.examples(in: Self.service, prompt: "$ ", replacingWith: Array(outputs)).page
                .write(toFile: Self.service, atomically: true, encoding: .utf8)
            return
        }
        for (example, output) in zip(examples, outputs) {
            #expect(
                output == example.expected,
                "example of the manual: \(example.command); rerun with SPOTLITE_UPDATE_DOCS=1 to accept")
        }
    }

    /// `examples` run in order in one bash (so `id=$(…)` carries over), with `spotlite` on the PATH: each page
    /// text of `replacing` put in for its real value in the commands, and back in the outputs. The outputs, one per
    /// example, each ending in a newline unless empty. A simple command sent to the background (`… &`) shows its
    /// first line (waited for, up to 10 s) and runs until the last example is done, then is sent SIGTERM.
    static func runInOneShell(
        _ examples: [Example], environment: [String: String], replacing: [(shown: String, real: String)],
        directory: String? = nil
    ) -> [String] {
        let separator = "\u{1E}"
        let script =
            "background=$(mktemp -d)\n"
            + examples.enumerated().map { number, example in
                let command = replacing.reduce(example.command) {
                    $0.replacingOccurrences(of: $1.shown, with: $1.real)
                }
                guard command.hasSuffix(" &") else { return "{ \(command)\n} 2>&1; printf '\(separator)'" }
                let log = "\"$background/\(number)\""
                return "( exec \(command.dropLast(2)) ) >\(log) 2>&1 &\n"
                    + "for _ in $(seq 200); do grep -q . \(log) && break; sleep 0.05; done\n"
                    + "head -n 1 \(log); printf '\(separator)'"
            }.joined(separator: "\n")
            + "\nkill $(jobs -p) 2>/dev/null; wait; rm -rf \"$background\""
        var environment = environment
        let binaries = URL(fileURLWithPath: CLI.binary).deletingLastPathComponent().path
        environment["PATH"] = binaries + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let result = TestSupport.run(["bash", "-c", script], environment: environment, directory: directory)
        return result.stdout.components(separatedBy: separator).dropLast().map { output in
            // Longest first: a path inside another (the default store under HOME) is put back whole.
            let shown = replacing.sorted { $0.real.count > $1.real.count }
                .reduce(output) { $0.replacingOccurrences(of: $1.real, with: $1.shown) }
            return shown.isEmpty || shown.hasSuffix("\n") ? shown : shown + "\n"
        }
    }

    /// docs/watch.md's example, in one shell on samples/: a watcher started in the background keeps the index live
    /// while `sqlite3` writes the store, and `status` names it ("…" in a shown line stands for any text).
    @Test func theWatchExamplePrintsWhatThePageShows() throws {
        let examples = try Self.examples(in: Self.watch, prompt: "$ ").examples
        #expect(examples.count == 4)
        let cli = CLI.withSamples()
        let uuid = try #require(
            cli.json(cli("status", "--format", "json")).flatMap { ($0 as? [String: Any])?["store_uuid"] as? String })
        let outputs = Self.runInOneShell(
            examples, environment: cli.environment,
            replacing: [
                ("~/.local/share/spotlite/tracker.sqlite", cli.storePath),
                ("2ca4d0c0-81f4-4216-823a-104a32f4c87e", uuid),
            ])
        try #require(outputs.count == examples.count, "\(outputs)")
        // The watcher's log line and pid are the run's own: its time, index path and pid stand for any, and it names
        // the store by its absolute path (the page's /home/me is the `~` of the commands).
        let logLine = try #require(try Regex(#"^\S+(\+0000 .* index=)\S+"#).firstMatch(in: examples[0].expected))
        let shown = [
            "…" + String(examples[0].expected[try #require(logLine.output[1].range)]) + "…"
                + examples[0].expected[logLine.range.upperBound...].replacingOccurrences(of: "/home/me/", with: "~/"),
            examples[1].expected, examples[2].expected,
            examples[3].expected.replacingOccurrences(of: "process 4242", with: "process …"),
        ]
        for (example, (output, expected)) in zip(examples, zip(outputs, shown)) {
            #expect(Self.matches(output, shown: expected), "docs/watch.md: \(example.command)\n\(output)")
        }
    }

    /// The section's `$ …` lines run in one shell on samples/ as the default store, with a scratch `HOME` for the
    /// other stores: store UUIDs are shown as `<store-uuid>` (the default) and `<NAME-uuid>`, other new UUIDs (a
    /// message's) as `<uuid>`.
    @Test func everyStoresExamplePrintsWhatThePageShows() throws {
        let examples = try Self.examples(in: Self.storesAndMessages, prompt: "$ ").examples
        #expect(examples.count >= 15)
        let cli = CLI.withSamples()
        let uuid = try #require(
            cli.json(cli("status", "--format", "json")).flatMap { ($0 as? [String: Any])?["store_uuid"] as? String })
        let home = cli.directory.file("home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        var environment = cli.environment
        environment["HOME"] = home
        environment["TZ"] = "UTC"
        environment["COLUMNS"] = "100"
        var outputs = Self.runInOneShell(
            examples, environment: environment,
            replacing: [
                ("~/.local/share/spotlite/tracker.sqlite", cli.storePath), ("<store-uuid>", uuid), ("~", home),
            ],
            directory: home)
        try #require(outputs.count == examples.count, "\(outputs)")
        // The named stores' UUIDs by name, and any other UUID the samples do not have.
        let listed = TestSupport.run([CLI.binary, "stores", "list", "--format", "json"], environment: environment)
        let stores = (cli.json(listed) as? [String: Any])?["stores"] as? [[String: Any]] ?? []
        let names = stores.compactMap { row -> (String, String)? in
            guard let name = row["name"] as? String, let id = row["uuid"] as? String, id != uuid else { return nil }
            return (id, "<\(name)-uuid>")
        }
        let samples = try String(contentsOfFile: Repository.portfolio, encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
        outputs = outputs.map { output in
            var text = names.reduce(output) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).reversed() {
                guard let range = Range(match.range, in: text), !samples.contains(text[range]) else { continue }
                text.replaceSubrange(range, with: "<uuid>")
            }
            return text
        }
        if Self.updating {
            try Self.examples(in: Self.storesAndMessages, prompt: "$ ", replacingWith: outputs).page
                .write(toFile: Self.storesAndMessages, atomically: true, encoding: .utf8)
            return
        }
        for (example, output) in zip(examples, outputs) {
            #expect(
                output == example.expected,
                "example of the manual: \(example.command); rerun with SPOTLITE_UPDATE_DOCS=1 to accept")
        }
    }
}
