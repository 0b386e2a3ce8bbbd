import Foundation
import TestSupport
import Testing

/// Bad input gets one line on stderr, a documented exit code, and nothing stored is lost.
@Suite struct BadInputTests {
    func expectOneLine(_ result: ProcessResult, status: Int32, containing text: String) {
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("spotlite: "), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains(text), "\(result.stderr)")
        #expect(!result.stderr.contains("Fatal error"))
    }

    @Test func aMissingStoreSaysHowToCreateOne() {
        let cli = CLI()
        expectOneLine(cli("search", "tap"), status: 5, containing: "create one with `spotlite init`")
    }

    @Test func aFileThatIsNotSQLiteIsRefusedUntouched() throws {
        let cli = CLI()
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: cli.storePath))
        expectOneLine(cli("status"), status: 5, containing: "is not a Spotlite store (not an SQLite database)")
        #expect(try String(contentsOfFile: cli.storePath, encoding: .utf8) == "not a database")
    }

    @Test func badWritesAreRefusedAndNothingChanges() {
        let cli = CLI.withSamples()
        let before = cli("export").stdout
        expectOneLine(
            cli("add", "item", "--project", "Nowhere", "x"), status: 3, containing: "no project titled 'Nowhere'")
        expectOneLine(cli("add", "item", "--project", "Garden", "  "), status: 2, containing: "the item title is empty")
        expectOneLine(
            cli("add", "item", "--project", "Garden", "x", "--priority", "4"), status: 2,
            containing: "priority 4 is out of range; use 1 (low), 2 (medium) or 3 (high)")
        expectOneLine(cli("edit", "tracker://x/item/y", "--title", "t"), status: 2, containing: "malformed URI")
        expectOneLine(cli("delete", "not-a-uri"), status: 2, containing: "malformed URI 'not-a-uri'")
        #expect(cli("export").stdout == before)
    }

    @Test func aBadImportFileIsRejectedWholeByLine() throws {
        let cli = CLI.withSamples()
        let before = cli("export").stdout
        let good = try String(contentsOfFile: Repository.portfolio, encoding: .utf8)
        let file = cli.directory.file("bad.jsonl")
        let lines = good.split(separator: "\n").map(String.init)
        var bad = lines
        bad[3] = bad[3].replacingOccurrences(of: "\"priority\":2", with: "\"priority\":0")
        try (bad.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        expectOneLine(cli("import", file), status: 2, containing: "line 4: field \"priority\" is 0")

        var bytes = Data((lines[0] + "\n").utf8)
        bytes.append(
            contentsOf: Array("{\"kind\":\"project\",\"title\":\"bad \u{FF}".utf8).dropLast(2) + [0xFF, 0xFE]
                + Array("\"}\n".utf8))
        expectOneLine(cli("import", "-", input: bytes), status: 2, containing: "line 2: is not valid UTF-8")
        expectOneLine(cli("import", cli.directory.file("absent.jsonl")), status: 2, containing: "cannot read")
        #expect(cli("export").stdout == before)
    }

    @Test func aWordLongerThanXapiansTermLimitDoesNotStopIndexing() {
        let cli = CLI.withSamples()
        let word = String(repeating: "abcdefghij", count: 30)
        #expect(cli("add", "item", "--project", "Garden", "Odd entry", "--detail", "before \(word) findme").status == 0)
        #expect(cli("index").status == 0)
        #expect(cli("search", "findme", "--format", "ids").stdoutLines.count == 1)
        #expect(cli("verify").status == 0)
    }

    @Test func unknownOptionsAreUsageErrors() {
        let cli = CLI.withSamples()
        let result = cli("search", "--nope", "x")
        #expect(result.status == 2)
        #expect(cli("search", "tap", "--limit", "0").status == 2)
        #expect(cli("search", "tap", "--format", "xml").status == 2)
    }

    /// Everything after `--` is the query, options or not; a page far past any index is refused with a sentence,
    /// never an overflow (`--offset 9223372036854775807` died by SIGILL).
    @Test func theQueryAfterDashesAndPagesPastAnyIndex() {
        let cli = CLI.withSamples()
        let spotlight = cli("search", "--spotlight", "--format", "ids", "--", #"title == "leaking*""#)
        #expect(spotlight.status == 0 && spotlight.stdoutLines.count == 2, "\(spotlight.stderr)")
        // `--limit 1` after `--` is words of the query, not the option.
        let words = cli("search", "--format", "ids", "--", "tap", "--limit", "1")
        #expect(words.status == 1 && words.stderr.contains("no matches"), "\(words.stdout)\(words.stderr)")
        #expect(cli("search", "--format", "ids", "--", "-is:completed", "tap").stdoutLines.count == 2)
        for offset in ["9223372036854775807", "1000001", "-1"] {
            let result = cli("search", "tap", "--offset=\(offset)")
            #expect(result.status == 2, "\(offset): \(result.stderr)")
            #expect(result.stderr.contains("--offset must be a whole number from 0 to 1000000"), "\(result.stderr)")
        }
        #expect(cli("search", "tap", "--limit", "9223372036854775807").status == 2)
        // The API's words for the same mistakes (ServerRouteTests), with the option's dashes.
        for (arguments, message) in [
            (
                ["--facets", "project,bogus"],
                "--facets takes project, priority, status, store, tag, assignee and resolution, not 'bogus'"
            ),
            (["--sort", "newest"], "--sort takes relevance, created, modified, priority, title, not 'newest'"),
            (["--reverse"], "--reverse needs --sort created, modified, priority or title"),
            (["--limit", "ten"], "--limit must be a whole number from 1 to 1000000"),
        ] {
            let result = cli.run(arguments: ["search", "tap"] + arguments)
            #expect(result.status == 2 && result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        let uri = cli("search", "tap", "--format", "ids").stdoutLines.first ?? ""
        #expect(cli("similar", uri, "--offset", "9223372036854775807").status == 2)
        // A field with nothing after it is refused as its empty value is, not searched as a word.
        let author = cli("search", "author:")
        #expect(author.status == 2 && author.stderr.contains("author: needs a name"), "\(author.stderr)")
    }
}
