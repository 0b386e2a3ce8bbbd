import Foundation
import SearchIndex
import TestSupport
import Testing

/// What a person reads in the answers: ranking, counts, spelling hints and text in any language, each a problem
/// a user met (issue 12), through the real binary on the hand-written samples.
@Suite struct SearchQualityTests {
    static func titles(_ cli: CLI, _ arguments: String...) -> [String] {
        let result = cli.run(arguments: ["search"] + arguments + ["--format", "jsonl", "--limit", "100"])
        return result.stdoutLines.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["title"] as? String
        }
    }

    @Test func aShortQueryPutsTitleMatchesFirst() {
        let cli = CLI.withSamples()
        let titles = Self.titles(cli, "fix")
        // "Set up automatic savings" has only "fixed" in its detail; the five "Fix …" titles come first.
        let fixes = titles.prefix { $0.hasPrefix("Fix ") }
        #expect(fixes.count == 5, "\(titles)")
        #expect(titles.dropFirst(fixes.count).contains("Set up automatic savings"), "\(titles)")
        // A word being typed (or a wildcard) in the title weighs as the whole word would.
        #expect(Self.titles(cli, "leaking", "ta", "--partial").first == "Fix the leaking tap")
        #expect(Self.titles(cli, "washer", "ta*").first == "Fix the leaking tap")
        let json = cli("search", "title:squeak*", "--format", "json")
        let hits = (cli.json(json) as? [String: Any])?["hits"] as? [[String: Any]]
        #expect((hits?.first?["score"] as? Double ?? 0) > 0, "\(json.stdout)")
    }

    @Test func pagingPastTheEndSaysHowManyThereAre() {
        let cli = CLI.withSamples()
        let text = cli("search", "leaking", "tap", "--offset", "2")
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout == "no hits on this page: 2 matches in all\n")
        let ids = cli("search", "leaking", "tap", "--offset", "5", "--format", "ids")
        #expect(ids.status == 0)
        #expect(ids.stdout.isEmpty)
        #expect(ids.stderr == "spotlite: no hits on this page: 2 matches in all\n")
        let none = cli("search", "zeppelin")
        #expect(none.status == 1)
        #expect(none.stdout == "no matches for zeppelin\n")
    }

    @Test func spellingIsCorrectedWordByWordWithoutAddingQuotes() {
        let cli = CLI.withSamples()
        for (typed, meant) in [
            ("kitchn tap", "kitchen tap"), ("washr tap", "washer tap"),
            ("boilr installers", "boiler installers"), ("kitchn washr", "kitchen washer"),
        ] {
            let result = cli.run(arguments: ["search"] + typed.split(separator: " ").map(String.init))
            #expect(result.status == 1)
            #expect(result.stderr == "spotlite: did you mean '\(meant)'? (add --correct to search it)\n", "\(typed)")
            let corrected = cli.run(
                arguments: ["search", "--correct", "--format", "ids"]
                    + typed.split(separator: " ").map(String.init))
            #expect(corrected.status == 0, "\(typed): \(corrected.stderr)")
            #expect(corrected.stderr.contains("showing results for '\(meant)'"), "\(corrected.stderr)")
        }
        // "kitchen hose" finds nothing, so it is not offered.
        let useless = cli("search", "kitchn", "hose")
        #expect(useless.status == 1)
        #expect(!useless.stderr.contains("did you mean"), "\(useless.stderr)")
        // Operators and filters stay as typed.
        let mixed = cli("search", "kitchn", "OR", "zeppelin", "is:open")
        #expect(mixed.stderr.contains("did you mean 'kitchen OR zeppelin is:open'?"), "\(mixed.stderr)")
    }

    @Test func aProjectFilterThatMatchesNoProjectSuggestsTheNearestTitles() {
        let cli = CLI.withSamples()
        let result = cli("search", "project:gardn")
        #expect(result.status == 1)
        #expect(result.stderr == "spotlite: no project titled 'gardn'; did you mean 'Garden'?\n")
        let far = cli("search", "project:zeppelin")
        #expect(far.stderr == "spotlite: no project titled 'zeppelin'\n")
        // A project that exists but holds no match is not a typo.
        let empty = cli("search", "project:Garden", "zeppelin")
        #expect(empty.status == 1)
        #expect(empty.stderr.isEmpty, "\(empty.stderr)")
    }

    /// A store with titles in several scripts, accents and widths.
    static func international() -> CLI {
        let cli = CLI()
        expectFixture(cli("init").status == 0)
        expectFixture(cli("add", "project", "Intl").status == 0)
        for title in [
            "Café au lait", "Résumé update", "Trip to Zürich", "日本語のタスク", "Éclair recipe",
            "zebra crossing", "Ｆｕｌｌｗｉｄｔｈ letters", "apple pie", "Zucchini soup",
        ] {
            expectFixture(cli("add", "item", "--project", "Intl", title).status == 0)
        }
        return cli
    }

    @Test func accentsCaseWidthAndScriptsMatchAsPeopleTypeThem() {
        let cli = Self.international()
        let decomposedCafe = "cafe\u{301}"
        for (query, title) in [
            ("cafe", "Café au lait"), ("CAFÉ", "Café au lait"), (decomposedCafe, "Café au lait"),
            ("resume", "Résumé update"), ("zurich", "Trip to Zürich"),
            ("日本語", "日本語のタスク"),
            ("タスク", "日本語のタスク"), ("fullwidth", "Ｆｕｌｌｗｉｄｔｈ letters"),
            ("eclair", "Éclair recipe"),
        ] {
            #expect(Self.titles(cli, query) == [title], "\(query)")
        }
        // The stemmer is still English: résumés finds résumé.
        #expect(Self.titles(cli, "résumés") == ["Résumé update"])
    }

    @Test func titlesSortInCollationOrder() {
        let cli = Self.international()
        let titles = Self.titles(cli, "kind:item", "--sort", "title")
        let latin = [
            "apple pie", "Café au lait", "Éclair recipe", "Ｆｕｌｌｗｉｄｔｈ letters", "Résumé update",
            "Trip to Zürich", "zebra crossing", "Zucchini soup",
        ]
        #expect(titles.filter(latin.contains) == latin, "\(titles)")
        #expect(Self.titles(cli, "kind:item", "--sort", "title", "--reverse") == titles.reversed())
    }

    @Test func textColumnsLineUpByDisplayWidth() {
        let cli = Self.international()
        let lines = cli("search", "kind:item", "--sort", "title").stdoutLines.filter { $0.contains(" Intl ") }
        #expect(lines.count == 9)
        let columns = Set(lines.map { line in displayWidth(line[..<line.range(of: " Intl ")!.lowerBound]) })
        #expect(columns.count == 1, "\(lines)")
    }

    /// Folded words are new terms: an index of an older layout is rebuilt by the next command that reads it.
    @Test func anIndexOfTheLayoutBeforeIsRebuiltWithOneNotice() throws {
        let cli = CLI.withSamples()
        let generations = try FileManager.default.contentsOfDirectory(atPath: cli.indexPath).filter {
            $0.hasPrefix("db-")
        }
        let generation = try #require(generations.first)
        do {
            let index = try SearchableIndex(path: cli.indexPath + "/" + generation)
            try index.setMetadata(SearchIndexLayout.versionKey, "3")
            try index.commit(clientState: try #require(try index.fetchLastClientState()))
        }
        let result = cli("search", "tap", "--format", "ids")
        #expect(result.status == 0)
        #expect(
            result.stderr.split(separator: "\n").first
                == "spotlite: built the index first (the index layout is 3, this spotlite writes \(SearchIndexLayout.version))"
        )
        #expect(result.stderr.split(separator: "\n").count == 2, "\(result.stderr)")  // and the total
        #expect(cli("search", "tap", "--format", "ids").stderr.split(separator: "\n").count == 1)
    }

    @Test func similarListsItemsLikeOneAndLeavesItOut() throws {
        let cli = CLI.withSamples()
        #expect(
            cli("add", "item", "--project", "Garden", "Leaking garden hose", "--detail", "the hose leaks").status == 0)
        let tap = cli("search", "title:leaking", "title:tap", "--format", "ids").stdout.trimmingCharacters(
            in: .newlines)
        let hose = cli("search", "title:\"leaking hose\"", "--format", "ids").stdout.trimmingCharacters(in: .newlines)
        #expect(!tap.isEmpty && !hose.isEmpty)

        let ids = cli("similar", hose, "--format", "ids")
        #expect(ids.status == 0, "\(ids.stderr)")
        #expect(!ids.stdoutLines.contains(hose))
        #expect(ids.stdoutLines.first.map { cli("resolve", $0, "--format", "ids").status } == 0)
        let titles = ids.stdoutLines.prefix(2).compactMap { uri in
            (cli.json(cli("resolve", uri, "--format", "json")) as? [String: Any])?["title"] as? String
        }
        #expect(Set(titles) == ["Leaking garden hose", "Fix the leaking tap"], "\(titles)")

        let json = try #require(cli.json(cli("similar", hose, "--limit", "2", "--format", "json")) as? [String: Any])
        let hits = try #require(json["hits"] as? [[String: Any]])
        #expect(hits.count == 2)
        let likeness = hits.compactMap { $0["likeness"] as? Double }
        #expect(likeness.count == 2 && likeness.allSatisfy { $0 > 0 && $0 <= 1 } && likeness == likeness.sorted(by: >))
        #expect(cli("similar", hose, "-n", "1", "--format", "jsonl").stdoutLines.count == 1)
        #expect(cli("similar", hose, "-n", "1").stdout.contains("likeness 0."))

        // Nothing like it: exit 1. Not in the store: 3. Another store's: 4.
        let lonely = cli("add", "item", "--project", "Garden", "Xylophone").stdout.trimmingCharacters(in: .newlines)
        let none = cli("similar", lonely)
        #expect(none.status == 1)
        #expect(none.stdout == "no matches for like \(lonely)\n")
        #expect(cli("delete", lonely).status == 0)
        #expect(cli("similar", lonely).status == 3)
        let foreign = "tracker://00000000-0000-4000-8000-000000000000/item/00000000-0000-4000-8000-000000000001"
        #expect(cli("similar", foreign).status == 4)
        #expect(cli("similar", "not-a-uri").status == 2)
    }

    @Test func addingAnItemCanWarnOfLikelyDuplicates() {
        let cli = CLI.withSamples()
        let added = cli(
            "add", "item", "--project", "Home renovation", "The kitchen tap is leaking",
            "--detail", "The tap drips; replace the washer.", "--check-duplicates")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdoutLines.count == 1)
        let warnings = added.stderr.split(separator: "\n")
        #expect(
            warnings.contains {
                $0.hasPrefix("spotlite: likely duplicate (0.") && $0.contains("Fix the leaking tap tracker://")
            },
            "\(added.stderr)")
        // Something new: no warning at all.
        let fresh = cli("add", "item", "--project", "Garden", "Tune the piano", "--check-duplicates")
        #expect(fresh.status == 0)
        #expect(fresh.stderr.isEmpty, "\(fresh.stderr)")
        // Without the flag, add stays as quiet as before.
        #expect(cli("add", "item", "--project", "Garden", "Fix the leaking hose again").stderr.isEmpty)
    }
}

/// Terminal columns `text` takes: two for East Asian wide and fullwidth characters, one otherwise.
func displayWidth(_ text: Substring) -> Int {
    text.unicodeScalars.reduce(0) { width, scalar in
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6:
            return width + 2
        case 0x300...0x36F:
            return width
        default:
            return width + 1
        }
    }
}
