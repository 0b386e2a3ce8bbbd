import Foundation
import TestSupport
import Testing

/// The Debian changelog corpus (9,503 items, 392 projects) through the real binary.
@Suite(.serialized) struct DebianCorpusTests {
    /// One imported and indexed corpus store, shared by the read-only tests below.
    static let shared: CLI = {
        let cli = CLI()
        expectFixture(cli("init").status == 0)
        let imported = cli("import", "-", input: Repository.debianCorpusData)
        expectFixture(imported.status == 0, imported.stderr)
        expectFixture(cli("index").status == 0)
        return cli
    }()

    /// The index keeps a row's URI short (`Q~` + the kind's letter + the UUID's 16 bytes in base64url; the
    /// `tracker://<store>/` they share is in the index's metadata): one such term per row of the store.
    @Test func xapianDelveShowsOneUniqueIdTermPerStoreRowEqualToItsURI() throws {
        let cli = Self.shared
        let rows = cli.sqlite("SELECT 'i' || id FROM items UNION ALL SELECT 'p' || id FROM projects;")
        #expect(rows.status == 0, "\(rows.stderr)")
        let expected = Set(
            try rows.stdoutLines.map { row in
                let uuid = try #require(UUID(uuidString: String(row.dropFirst())), "\(row)")
                let bytes = withUnsafeBytes(of: uuid.uuid) { Data($0) }
                let base64url = bytes.base64EncodedString().replacingOccurrences(of: "+", with: "-")
                    .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
                return "Q~" + row.prefix(1) + base64url
            })
        #expect(expected.count == 9_895)

        let delve = TestSupport.run(["xapian-delve", "-a", "-1", cli.indexPath])
        #expect(delve.status == 0, "\(delve.stderr)")
        let uniqueTerms = delve.stdoutLines.filter { $0.hasPrefix("Q") }
        #expect(uniqueTerms.count == expected.count)
        let indexed = Set(uniqueTerms)
        #expect(
            indexed.subtracting(expected).isEmpty, "terms without a row: \(indexed.subtracting(expected).prefix(3))")
        #expect(
            expected.subtracting(indexed).isEmpty, "rows without a term: \(expected.subtracting(indexed).prefix(3))")
        let summary = TestSupport.run(["xapian-delve", cli.indexPath]).stdout
        #expect(summary.contains("number of documents = 9895"))
    }

    @Test func everyHitOfSeveralQueriesResolves() throws {
        let cli = Self.shared
        for query in [
            "release", "fix crash", "security CVE", "project:glibc", "\"new upstream release\"",
            "title:typo OR detail:typos", "priority:3 kind:item",
        ] {
            let ids = cli("search", query, "--format", "ids", "--limit", "200")
            #expect(ids.status == 0, "\(query): \(ids.stderr)")
            #expect(!ids.stdoutLines.isEmpty)
            let resolved = cli.run(arguments: ["resolve", "--format", "jsonl"] + ids.stdoutLines)
            #expect(resolved.status == 0, "\(query): \(resolved.stderr)")
            #expect(resolved.stdoutLines.count == ids.stdoutLines.count)
        }
    }

    /// Xapian estimates a total it has not counted; up to 1,000 matches Spotlite counts them all.
    @Test func theTotalIsExactUpToAThousandMatches() {
        let cli = Self.shared
        let all = cli("search", "memory", "leak", "--format", "ids", "--limit", "1000")
        #expect(all.status == 0)
        let count = all.stdoutLines.count
        #expect(count > 20 && count < 1000, "\(count)")
        #expect(all.stderr == "spotlite: hits 1–\(count) of \(count)\n")
        #expect(cli("search", "memory", "leak", "--limit", "3").stdoutLines.last == "hits 1–3 of \(count)")
        // Beyond 1,000 the total may be an estimate, and says so.
        let many = cli("search", "release", "--format", "ids", "--limit", "1")
        #expect(many.stderr.hasPrefix("spotlite: hits 1–1 of "), "\(many.stderr)")
        let total = Int(many.stderr.split(separator: " ").last?.trimmingCharacters(in: .newlines) ?? "") ?? 0
        #expect(many.stderr.contains(" of about ") || total > 1000, "\(many.stderr)")
    }

    @Test func searchIdsPipeIntoResolveOnTheCorpus() {
        let cli = Self.shared
        let result = cli.shell(
            "\"$spotlite\" search release --format ids --limit 500 | xargs \"$spotlite\" resolve --format ids")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutLines.count == 500)
    }

    @Test func theHugeEntryIsIndexedWholeAndFoundByItsLastWords() throws {
        let cli = Self.shared
        let row = cli.sqlite("SELECT id, detail FROM items ORDER BY length(detail) DESC LIMIT 1;").stdout
        let id = String(row.prefix(36))
        let words = row.split(whereSeparator: { !$0.isLetter }).map(String.init).filter { $0.count >= 6 }
        #expect(words.count > 1_000)
        let tail = words.suffix(3).joined(separator: " ")
        let hits = cli("search", tail, "--format", "ids", "--limit", "1000").stdoutLines
        #expect(hits.contains { $0.hasSuffix("/item/" + id) }, "\(tail)")
    }

    @Test func exportThenImportIntoANewStoreExportsTheSame() {
        let cli = Self.shared
        let exported = cli("export")
        #expect(exported.status == 0)
        let copy = CLI()
        #expect(copy("init").status == 0)
        #expect(copy("import", "-", input: exported.stdoutData).status == 0)
        #expect(copy("export").stdout == exported.stdout)
    }

    /// A bulk import or a batch update leaves thousands of changes to apply: a search says so at once, before the
    /// wait, and `spotlite index` on a terminal shows how far it has come (and nothing of it in a pipe or a log).
    @Test func aLargeBacklogIsAnnouncedAndItsCatchUpShowsProgressOnATerminal() throws {
        let cli = CLI()
        #expect(cli("init").status == 0)
        #expect(cli("index").status == 0)
        #expect(cli("import", "-", input: Repository.debianCorpusData).status == 0)
        let first = cli("search", "dpkg", "--format", "ids")
        #expect(first.status == 0)
        #expect(!first.stdout.isEmpty)
        // The whole corpus behind an index of 45 documents: rebuilt, which is quicker than catching up.
        #expect(
            first.stderr.hasPrefix(
                "spotlite: the index is 9895 changes behind the store; rebuilding it before searching"),
            "\(first.stderr)")
        let second = cli("search", "dpkg", "--format", "ids")
        #expect(!second.stderr.contains("behind the store"), "\(second.stderr)")

        // A plain sqlite3 batch update of a third of the items: one change each, caught up.
        #expect(cli.sqlite("UPDATE items SET priority = 1 + priority % 3 WHERE rowid % 3 = 0;").status == 0)
        let behind = try #require(
            (cli.json(cli("status", "--format", "json")) as? [String: Any])?["changes_behind"] as? Int)
        #expect(behind > 3_000)
        // `script` gives the command a terminal; what the terminal shows comes back on its stdout.
        let command = [CLI.binary, "index", "--batch-size", "1000"].joined(separator: " ")
        let terminal = TestSupport.run(["script", "-qec", command, "/dev/null"], environment: cli.environment)
        #expect(terminal.status == 0, "\(terminal.stderr)")
        #expect(
            terminal.stdout.contains("\r\u{1B}[Kspotlite: applying changes: 0 of \(behind) changes"),
            "\(terminal.stdout)")
        #expect(
            terminal.stdout.contains("\r\u{1B}[Kspotlite: applying changes: \(behind) of \(behind) changes, "),
            "\(terminal.stdout)")
        // The progress line is cleared before the summary.
        #expect(terminal.stdout.contains("\r\u{1B}[Kapplied \(behind) changes"), "\(terminal.stdout)")

        // A rebuild counts the store's rows as it reads them, with the rate.
        let rebuild = [CLI.binary, "index", "--rebuild"].joined(separator: " ")
        let rebuilt = TestSupport.run(["script", "-qec", rebuild, "/dev/null"], environment: cli.environment)
        #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
        #expect(rebuilt.stdout.contains("\r\u{1B}[Kspotlite: rebuilding: 0 of 9895 rows"), "\(rebuilt.stdout)")
        #expect(rebuilt.stdout.contains("\r\u{1B}[Kspotlite: rebuilding: 9895 of 9895 rows, "), "\(rebuilt.stdout)")
        #expect(rebuilt.stdout.contains("\r\u{1B}[Krebuilt "), "\(rebuilt.stdout)")

        #expect(cli.sqlite("UPDATE items SET priority = 2 WHERE rowid % 3 = 1;").status == 0)
        let piped = cli("index", "--batch-size", "1000")
        #expect(piped.status == 0)
        #expect(piped.stderr.isEmpty, "\(piped.stderr)")
        #expect(piped.stdout.hasPrefix("applied "), "\(piped.stdout)")
    }

    @Test func anIndexerKilledMidwayResumesToACleanIndex() throws {
        let cli = CLI()
        #expect(cli("init").status == 0)
        #expect(cli("import", "-", input: Repository.debianCorpusData).status == 0)
        #expect(cli("index").status == 0)
        // Two items in five edited by a plain sqlite3 batch: a backlog to catch up (a half or more is rebuilt).
        #expect(cli.sqlite("UPDATE items SET detail = detail || ' (edited)' WHERE rowid % 5 < 2;").status == 0)
        let before = try #require((cli.json(cli("status", "--format", "json")) as? [String: Any])?["cursor"] as? Int)
        let backlog = try #require(
            (cli.json(cli("status", "--format", "json")) as? [String: Any])?["changes_behind"] as? Int)
        #expect(backlog > 3_000 && backlog < 4_970, "\(backlog)")

        let process = try cli.start(["index", "--batch-size", "50"])
        // Kill it once some batches are committed and before all are.
        var cursor = before
        let deadline = Date().addingTimeInterval(60)
        while cursor == before && Date() < deadline {
            let status = cli.json(cli("status", "--format", "json")) as? [String: Any]
            cursor = status?["cursor"] as? Int ?? before
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        let after = try #require(cli.json(cli("status", "--format", "json")) as? [String: Any])
        let committed = try #require(after["cursor"] as? Int) - before
        #expect(committed > 0 && committed < backlog, "killed at cursor \(before + committed)")
        #expect(committed % 50 == 0 || committed == backlog)  // only whole batches are committed

        let resumed = cli("index")
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stdout.hasPrefix("applied \(backlog - committed) changes"), "\(resumed.stdout)")
        let verify = cli("verify")
        #expect(verify.status == 0, "\(verify.stdout)")
    }

    @Test func aRebuildKilledMidwayLeavesTheOldIndexServingAndIsRedone() throws {
        let cli = CLI()
        #expect(cli("init").status == 0)
        #expect(cli("import", Repository.portfolio).status == 0)
        #expect(cli("index").status == 0)
        #expect(cli("import", "-", input: Repository.debianCorpusData).status == 0)
        let process = try cli.start(["index", "--rebuild"])
        // Killed while the shards of the new generation (db-2.shard-K) are being filled.
        let fresh = cli.indexPath + "/db-2.shard-0"
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: fresh) && Date() < deadline { usleep(2_000) }
        usleep(200_000)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        // The old generation still serves searches.
        #expect(try String(contentsOfFile: cli.indexPath + "/XAPIANDB", encoding: .utf8) == "auto db-1\n")
        let old = TestSupport.run(["xapian-delve", cli.indexPath]).stdout
        #expect(old.contains("number of documents = 49"))  // the samples: 5 projects, 40 items, 4 messages

        #expect(cli("index").status == 0)
        #expect(cli("verify").status == 0)
        let generations = try FileManager.default.contentsOfDirectory(atPath: cli.indexPath).filter {
            $0.hasPrefix("db-")
        }
        #expect(generations.count == 1)
    }
}

extension DebianCorpusTests {
    @Test func aWildcardThatWouldExpandTooFarIsRefusedWithAMessage() {
        let cli = Self.shared
        let result = cli("search", "a*")
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "spotlite: a wildcard in 'a*' matches more than 1000 words; type more letters before the *\n")
        #expect(cli("search", "accer*", "--format", "ids").status == 0)
    }
}
