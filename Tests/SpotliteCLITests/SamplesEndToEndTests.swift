import Foundation
import TestSupport
import Testing

/// The README's workflow on samples/, through the real binary.
@Suite struct SamplesEndToEndTests {
    @Test func initPrintsThePathAndStoreURIAndIsIdempotent() {
        let cli = CLI()
        let first = cli("init")
        #expect(first.status == 0)
        #expect(first.stdoutLines.first == "store: \(cli.storePath)")
        #expect(first.stdoutLines.last?.hasPrefix("uri:   tracker://") == true)
        let second = cli("init")
        #expect(second.status == 0)
        #expect(second.stdout == first.stdout)
    }

    @Test func theDefaultStoreLivesUnderXDGDataHomeAndTheIndexUnderXDGCacheHome() throws {
        let cli = CLI()
        let data = cli.directory.file("data")
        let cache = cli.directory.file("cache")
        let env = ["XDG_DATA_HOME": data, "XDG_CACHE_HOME": cache, "SPOTLITE_STORE": "", "SPOTLITE_INDEX": ""]
        #expect(TestSupport.run([CLI.binary, "init"], environment: env).status == 0)
        #expect(FileManager.default.fileExists(atPath: data + "/spotlite/tracker.sqlite"))
        #expect(TestSupport.run([CLI.binary, "import", Repository.portfolio], environment: env).status == 0)
        #expect(TestSupport.run([CLI.binary, "index"], environment: env).status == 0)
        let status = TestSupport.run([CLI.binary, "status", "--format", "json"], environment: env)
        let object = try #require(try JSONSerialization.jsonObject(with: status.stdoutData) as? [String: Any])
        let uuid = try #require(object["store_uuid"] as? String)
        #expect(object["index"] as? String == cache + "/spotlite/" + uuid)
        #expect(FileManager.default.fileExists(atPath: cache + "/spotlite/" + uuid + "/XAPIANDB"))
    }

    @Test func searchFindsRanksAndResolvesInEveryFormat() throws {
        let cli = CLI.withSamples()
        let text = cli("search", "leaking", "tap")
        #expect(text.status == 0)
        let first = try #require(text.stdoutLines.first)
        #expect(first.hasPrefix("1  Fix the leaking tap "))
        #expect(first.hasSuffix(" Home renovation  P3 open 2024-03-02"))

        let json = cli("search", "leaking tap", "--format", "json")
        let object = try #require(cli.json(json) as? [String: Any])
        let hits = try #require(object["hits"] as? [[String: Any]])
        #expect(object["total"] as? Int == hits.count)
        #expect(hits.first?["title"] as? String == "Fix the leaking tap")
        #expect((hits.first?["project"] as? [String: Any])?["title"] as? String == "Home renovation")

        let lines = cli("search", "fix", "--format", "jsonl").stdoutLines
        #expect(lines.count >= 3)
        for line in lines { #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil) }

        let ids = cli("search", "fix", "--format", "ids").stdoutLines
        #expect(ids.count == lines.count)
        #expect(ids.allSatisfy { $0.hasPrefix("tracker://") })
    }

    @Test func searchExitsOneWithNoHitsAndTwoOnABadQuery() {
        let cli = CLI.withSamples()
        #expect(cli("search", "xylophone").status == 1)
        let bad = cli("search", "is:pending")
        #expect(bad.status == 2)
        #expect(
            bad.stderr
                == "spotlite: cannot parse the query 'is:pending': is:pending is not a status; use is:open, is:completed or is:closed\n"
        )
    }

    @Test func spellingSuggestionsReplaceOnlyUnknownWords() {
        let cli = CLI.withSamples()
        let real = cli("search", "hose")  // one hit; "home" is more frequent, but hose is a real word here
        #expect(real.status == 0)
        #expect(real.stderr.isEmpty)
        let typo = cli("search", "leaknig")
        #expect(typo.status == 1)
        #expect(typo.stderr == "spotlite: did you mean 'leaking'? (add --correct to search it)\n")
        // Quotes and parentheses around a word do not make it unknown.
        #expect(cli("search", "\"hose\"").stderr.isEmpty)
        #expect(cli("search", "(hose)").stderr.isEmpty)
        let quotedTypo = cli("search", "\"leaknig tap\"")
        #expect(quotedTypo.stderr == "spotlite: did you mean '\"leaking tap\"'? (add --correct to search it)\n")
    }

    @Test func filtersWorkThroughTheCLI() {
        let cli = CLI.withSamples()
        let home = cli("search", "project:\"Home renovation\"", "kind:item", "--format", "ids", "--limit", "100")
        #expect(home.stdoutLines.count == 8)
        let open = cli("search", "project:\"home renovation\" is:completed", "--format", "jsonl")
        #expect(open.stdoutLines.count == 2)
        #expect(cli("search", "priority:3", "kind:item", "--format", "ids", "--limit", "100").stdoutLines.count == 12)
        let paged = cli("search", "kind:item", "--limit", "5", "--offset", "35", "--format", "ids")
        #expect(paged.stdoutLines.count == 5)
        let past = cli("search", "kind:item", "--limit", "5", "--offset", "40", "--format", "ids")
        #expect(past.status == 0)
        #expect(past.stdout.isEmpty)
        #expect(past.stderr == "spotlite: no hits on this page: 40 matches in all\n")
    }

    @Test func writesThroughTheCLIAreSearchableAtOnce() throws {
        let cli = CLI.withSamples()
        let project = cli("add", "project", "Boat")
        #expect(project.status == 0)
        let item = cli(
            "add", "item", "--project", "boat", "Varnish the hull", "--detail", "two coats", "--priority", "3")
        #expect(item.status == 0)
        let uri = item.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(cli("search", "varnish", "--format", "ids").stdout == uri + "\n")
        #expect(cli("edit", uri, "--title", "Sand the hull").status == 0)
        #expect(cli("search", "varnish").status == 1)
        #expect(cli("complete", uri).status == 0)
        #expect(cli("search", "sand is:completed", "--format", "ids").stdout == uri + "\n")
        #expect(cli("reopen", uri).status == 0)
        #expect(cli("search", "sand is:open", "--format", "ids").stdout == uri + "\n")
        #expect(cli("delete", uri).status == 0)
        #expect(cli("search", "sand").status == 1)
        #expect(cli("resolve", uri).status == 3)
        #expect(cli("verify").status == 0)
    }

    @Test func resolveShowsTheItemBehindALinkWithDistinctExitCodes() throws {
        let cli = CLI.withSamples()
        let uri = cli("search", "leaking tap", "--format", "ids", "--limit", "1").stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let text = cli("resolve", uri)
        #expect(text.status == 0)
        #expect(text.stdoutLines.first == "Fix the leaking tap")
        #expect(text.stdout.contains("  priority:  3 (high)"))
        let json = try #require(cli.json(cli("resolve", uri, "--format", "json")) as? [String: Any])
        #expect(json["uri"] as? String == uri)
        #expect(json["kind"] as? String == "item")

        let malformed = cli("resolve", "tracker://nope")
        #expect(malformed.status == 2)
        #expect(malformed.stderr.split(separator: "\n").count == 1)

        let foreign = uri.replacingOccurrences(
            of: uri.split(separator: "/")[1], with: "00000000-0000-4000-8000-000000000000")
        let other = cli("resolve", foreign)
        #expect(other.status == 4)
        #expect(other.stderr.contains("belongs to another store"))

        let missing = uri.replacingOccurrences(of: String(uri.suffix(36)), with: "00000000-0000-4000-8000-000000000000")
        let gone = cli("resolve", missing)
        #expect(gone.status == 3)
        #expect(gone.stderr == "spotlite: \(missing) is not in this store (deleted, or never there)\n")
    }

    @Test func searchIdsPipeIntoResolve() {
        let cli = CLI.withSamples()
        let result = cli.shell("\"$spotlite\" search fix --format ids | xargs \"$spotlite\" resolve --format jsonl")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutLines.count == cli("search", "fix", "--format", "ids").stdoutLines.count)
    }

    @Test func statusReportsPathsCountsAndLag() throws {
        let cli = CLI.withSamples()
        cli.sqlite("UPDATE items SET priority = 1 WHERE priority = 3;")
        let object = try #require(cli.json(cli("status", "--format", "json")) as? [String: Any])
        #expect(object["store"] as? String == cli.storePath)
        #expect(object["index"] as? String == cli.indexPath)
        #expect(object["projects"] as? Int == 5)
        #expect(object["items"] as? Int == 40)
        #expect(object["changes_behind"] as? Int == 12)
        // 5 projects, 40 items, 4 messages, and 2 item updates for the items' first commenters.
        #expect(object["cursor"] as? Int == 51)
        let text = cli("status").stdout
        #expect(text.contains("behind:     12 changes, the oldest logged "))
        #expect(text.contains(" s ago (run `spotlite index`)"))
    }
}

/// Colour and bold only on a terminal, and never with NO_COLOR; shell completions come from the parser.
@Suite struct TerminalTests {
    /// Runs spotlite under `script`, which gives it a pseudo-terminal as stdout.
    func onTerminal(_ cli: CLI, _ arguments: String, noColor: Bool) -> String {
        var environment = cli.environment
        environment["TERM"] = "xterm"
        if noColor { environment["NO_COLOR"] = "1" } else { environment["NO_COLOR"] = nil }
        let command = "\(CLI.binary) \(arguments)"
        var env = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        if !noColor { env.removeValue(forKey: "NO_COLOR") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", command, "/dev/null"]
        process.environment = env
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardInput = FileHandle.nullDevice
        try? process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test func matchedWordsAreHighlightedOnATerminalOnly() {
        let cli = CLI.withSamples()
        let colored = onTerminal(cli, "search washer --limit 1", noColor: false)
        #expect(colored.contains("the \u{1B}[1;33mwasher\u{1B}[0m is worn"))
        let plain = onTerminal(cli, "search washer --limit 1", noColor: true)
        #expect(plain.contains("the washer is worn"))
        #expect(!plain.contains("\u{1B}["))
        let piped = cli("search", "washer", "--limit", "1")
        #expect(!piped.stdout.contains("\u{1B}["))
    }

    @Test func shellCompletionScriptsAreGenerated() {
        let cli = CLI()
        for shell in ["bash", "zsh", "fish"] {
            let script = cli("--generate-completion-script", shell)
            #expect(script.status == 0)
            #expect(script.stdout.contains("spotlite"))
            #expect(script.stdout.contains("search"))
        }
    }
}
