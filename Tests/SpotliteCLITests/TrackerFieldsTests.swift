import Foundation
import TestSupport
import Testing

/// An item's tracker fields through the binary: `add item` and `edit` options, `resolve` in text and JSON, search
/// hits that carry them, a `sqlite3` writer followed by the index, `verify` naming dangling links, and an export of
/// the samples' tracker issues that imports back the same.
@Suite struct TrackerFieldsTests {
    static func object(_ result: ProcessResult) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any]) ?? [:]
    }

    @Test func addEditResolveAndSearchCarryTheTrackerFields() throws {
        let cli = CLI.withSamples()
        let added = cli(
            "add", "item", "--project", "Home renovation", "Boiler pressure drops overnight", "--author", "Sam",
            "--assignee", "Ada", "--assignee", "Bo", "--tag", "heating", "--tag", "boiler", "--key", "HOME-7",
            "--url", "https://tracker.example.com/HOME-7")
        #expect(added.status == 0, "\(added.stderr)")
        let uri = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let copy = cli(
            "add", "item", "--project", "Home renovation", "Boiler loses pressure", "--link", "duplicate-of=\(uri)")
        #expect(copy.status == 0, "\(copy.stderr)")
        let copyURI = copy.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(cli("complete", copyURI).status == 0)
        #expect(cli("edit", copyURI, "--resolution", "duplicate", "--tag", "boiler").status == 0)
        #expect(cli("edit", uri, "--untag", "heating", "--unassign", "Bo", "--tag", "plumbing").status == 0)

        let resolved = Self.object(cli("resolve", uri, "--format", "json"))
        #expect(resolved["author"] as? String == "Sam" && resolved["assignees"] as? [String] == ["Ada"])
        #expect(resolved["tags"] as? [String] == ["boiler", "plumbing"] && resolved["key"] as? String == "HOME-7")
        #expect(resolved["closed_at"] is NSNull && (resolved["links"] as? [Any])?.isEmpty == true)
        let copyJSON = Self.object(cli("resolve", copyURI, "--format", "json"))
        #expect(copyJSON["resolution"] as? String == "duplicate" && copyJSON["closed_at"] is String)
        #expect((copyJSON["links"] as? [[String: String]]) == [["kind": "duplicate-of", "uri": uri]])
        let text = cli("resolve", copyURI).stdout
        #expect(text.contains("resolution: duplicate") && text.contains("duplicate-of: \(uri)"), "\(text)")
        #expect(text.contains("closed:    "))

        #expect(cli("search", "tag:boiler", "--format", "ids").stdoutLines.sorted() == [uri, copyURI].sorted())
        #expect(cli("search", "HOME-7", "--format", "ids").stdoutLines.first == uri)
        #expect(cli("search", "assignee:bo").status == 1)
        #expect(cli("search", "duplicates:\(uri)", "--format", "ids").stdoutLines == [copyURI])
        let hit = ((Self.object(cli("search", "key:home-7", "--format", "json"))["hits"] as? [[String: Any]]) ?? [])
        #expect(hit.first?["tags"] as? [String] == ["boiler", "plumbing"] && hit.first?["author"] as? String == "Sam")
        // A hit of an item with none of the fields carries none of them.
        let plain =
            ((Self.object(cli("search", "leaking", "tap", "--format", "json"))["hits"] as? [[String: Any]]) ?? [])
        #expect(plain.first.map { $0["tags"] == nil && $0["author"] == nil } == true)
    }

    @Test(arguments: [
        (["--tag", "a\u{1B}[2Jb"], "the tag holds the control character \\x1b; use printable characters"),
        (["--url", "javascript:alert(1)"], "is not an http(s) address"),
        (["--link", "fixes=tracker://x"], "--link"),
        (["--closed-at", "yesterday"], "not a real time"),
    ])
    func badTrackerFieldsAreRefusedInOneLine(arguments: [String], message: String) throws {
        let cli = CLI.withSamples()
        let result = cli.run(arguments: ["add", "item", "--project", "Garden", "Weed the beds"] + arguments)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains(message) && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(cli("search", "weed", "beds").status == 1)
    }

    @Test func aSQLiteWriterIsFollowedAndVerifyNamesDanglingLinks() throws {
        let cli = CLI.withSamples()
        #expect(cli("import", Repository.root + "/samples/tracker-issues.jsonl").status == 0)
        let sql = cli.sqlite(
            "INSERT INTO tags (item_id, title) SELECT id, 'urgent' FROM items WHERE source_key = 'APP-102';"
                + "DELETE FROM items WHERE source_key = 'APP-101';")
        #expect(sql.status == 0, "\(sql.stderr)")
        #expect(cli("search", "tag:urgent", "--format", "ids").stdoutLines.count == 1)
        let verify = cli("verify")
        #expect(verify.status == 0, "\(verify.stdout)")
        #expect(verify.stdout.contains("dangling ") && verify.stdout.contains(" duplicate-of "), "\(verify.stdout)")
        let json = Self.object(cli("verify", "--format", "json"))
        #expect((json["dangling_links"] as? [[String: String]])?.first?["kind"] == "duplicate-of")
    }

    @Test func theTrackerSamplesExportAndImportBackTheSame() throws {
        let cli = CLI()
        #expect(cli("init").status == 0)
        #expect(cli("import", Repository.root + "/samples/tracker-issues.jsonl").status == 0)
        let exported = cli("export")
        let other = CLI()
        #expect(other("init").status == 0)
        #expect(other("import", "-", input: exported.stdoutData).status == 0)
        #expect(other("export").stdout == exported.stdout)
        // The file again, unchanged: nothing updated.
        let again = cli("import", Repository.root + "/samples/tracker-issues.jsonl")
        #expect(again.stdout.hasPrefix("imported: 0 projects, 0 items and 0 messages added, 0 updated, 10 unchanged"))
    }
}

/// `spotlite import` of trackers' exports: the format guessed or given, the summary's notes, and the errors.
@Suite struct TrackerImportCommandTests {
    @Test func eachSampleExportIsGuessedImportedAndSearchable() throws {
        let cli = CLI()
        #expect(cli("init").status == 0)
        for name in [
            "github-issues.json", "jira-issues.json", "jira-issues.csv", "bugzilla-bugs.json", "bugzilla-bugs.csv",
        ] {
            let result = cli("import", Repository.root + "/samples/" + name)
            #expect(result.status == 0 && result.stdout.hasPrefix("imported: 1 project, "), "\(name): \(result.stderr)")
        }
        #expect(cli("search", "linked:duplicate-of", "--format", "ids").stdoutLines.count == 5)
        #expect(cli("search", "PAY-120", "--format", "ids").stdoutLines.count >= 1)
        // Standard input works too (the format read from its first bytes), and an unchanged export changes nothing.
        let data = try Data(contentsOf: URL(fileURLWithPath: Repository.root + "/samples/jira-issues.csv"))
        let again = cli("import", "-", input: data)
        #expect(
            again.stdout == "imported: 0 projects, 0 items and 0 messages added, 0 updated, 5 unchanged\n",
            "\(again.stderr)")
    }

    @Test func theFormatIsCheckedAndNamedInErrors() throws {
        let cli = CLI()
        #expect(cli("init").status == 0)
        let github = Repository.root + "/samples/github-issues.json"
        let wrong = cli("import", "--from", "jira", github)
        #expect(wrong.status == 2 && wrong.stderr.contains(#"expected {"issues": [...]}"#), "\(wrong.stderr)")
        let unknown = cli("import", "-", input: Data("Title,Owner\nFix it,ann\n".utf8))
        #expect(unknown.status == 2 && unknown.stderr.contains("cannot tell the format of standard input; give --from"))
        let bogus = cli("import", "--from", "trello", github)
        #expect(bogus.status == 2)
        let address = cli(
            "import", "--tracker-url", "bugzilla.example.org", Repository.root + "/samples/bugzilla-bugs.json")
        #expect(address.status == 2 && address.stderr.split(separator: "\n").count == 1, "\(address.stderr)")
        #expect(
            address.stderr.contains("--tracker-url: the tracker's address \"bugzilla.example.org\" is not an http(s)"))
        #expect(cli("status", "--format", "json").stdout.contains("\"items\":0"))
    }

    @Test func aBugGetsItsPageOnTheTrackerGivenAndOpensThere() throws {
        let cli = CLI()
        #expect(cli("init").status == 0)
        let imported = cli(
            "import", "--tracker-url", "https://bugzilla.example.org/", Repository.root + "/samples/bugzilla-bugs.json")
        #expect(imported.status == 0, "\(imported.stderr)")
        let uri = try #require(cli("search", "key:bug-1812", "--format", "ids").stdoutLines.first)
        let shown = cli("resolve", uri)
        #expect(
            shown.stdout.contains("url:       https://bugzilla.example.org/show_bug.cgi?id=1812"), "\(shown.stdout)")
    }
}
