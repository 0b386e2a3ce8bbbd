import Foundation
import SearchIndex
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `serve --publish` offers the live index to replicas with Xapian's replication server, and `spotlite replica` keeps
/// a copy of it with Xapian's replication client: the real binaries, on loopback ports.
@Suite struct ReplicationTests {
    /// Whether something accepts connections on 127.0.0.1:`port`.
    static func accepts(_ port: Int) -> Bool { (try? HTTPConnection(port: port, timeout: 1))?.close() != nil }

    /// What a replica or its primary answers to the same queries: every hit with its score, in order, and the index's
    /// documents and cursor. Equal at one revision when the copy is the primary's.
    static func answers(_ path: String) throws -> [String] {
        let reader = try SearchReader(path: path)
        var lines = [
            "documents \(try reader.documentCount())", "cursor \(try reader.fetchLastClientState() ?? "none")",
            "fingerprints \(try reader.fingerprints().sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })",
        ]
        for text in ["tap", "boat OR zebra", "\"leaking tap\"", "kind:item -tap", "zebra crossing", "title:zebra"] {
            let query = try SearchQueryParser().parse(text)
            var request = SearchRequest()
            request.limit = 100
            let hits = try reader.search(query, request).hits
            lines.append(text + ": " + hits.map { "\($0.uniqueIdentifier) \($0.score)" }.joined(separator: ", "))
        }
        return lines
    }

    /// Waits (up to 30 s) until the primary's index holds a document matching `word`.
    static func waitForPrimary(_ cli: CLI, toFind word: String) -> Bool {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let reader = try? SearchReader(path: cli.indexPath), let query = try? SearchQueryParser().parse(word),
                let found = try? reader.search(query).hits, !found.isEmpty
            {
                return true
            }
            usleep(50_000)
        }
        return false
    }

    @Test func aReplicaFollowsThePrimaryByChangesetsAndRebuildsByFullCopies() throws {
        let cli = CLI.withSamples()
        let uuid = try #require(cli.statusJSON()["store_uuid"] as? String)
        let port = LoopbackPort.free()
        let temporary = cli.directory.file("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        var server = try ServerProcess(
            cli, arguments: ["--publish", "127.0.0.1:\(port)"], environment: ["TMPDIR": temporary])
        // The server publishes this store's index and nothing else: the directory it serves holds one link.
        let published = try FileManager.default.contentsOfDirectory(atPath: temporary).filter { !$0.hasSuffix(".log") }
        #expect(published.count == 1)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: temporary + "/" + published[0]) == [uuid])

        let into = cli.directory.file("replica")
        let replica = ["replica", "--from", "127.0.0.1:\(port)", "--store", uuid, "--into", into]
        let first = cli.run(arguments: replica + ["--once"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("1 full copies, 0 changesets"), "\(first.stdout)")
        #expect(try Self.answers(into + "/copy") == Self.answers(cli.indexPath))

        // A write on the primary reaches the copy as the commits made since, not as a new copy.
        let project = cli("search", "kind:project", "--format", "ids").stdoutLines.first ?? ""
        #expect(cli("add", "item", "--project", project, "Zebra crossing repainted").status == 0)
        #expect(cli("add", "item", "--project", project, "Zebra crossing lights").status == 0)
        #expect(Self.waitForPrimary(cli, toFind: "lights"))
        let second = cli.run(arguments: replica + ["--once"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("0 full copies"), "\(second.stdout)")
        #expect(!second.stdout.contains("0 changesets"), "\(second.stdout)")
        let answers = try Self.answers(into + "/copy")
        #expect(answers == (try Self.answers(cli.indexPath)))
        #expect(answers.contains { $0.hasPrefix("zebra crossing: tracker://") })

        // Stopped, the server takes the directory it served with it.
        #expect(server.stop() == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary) == [])

        // A rebuild is a new database: the replica receives it whole, and answers as the rebuilt index does.
        #expect(cli("index", "--rebuild").status == 0)
        server = try ServerProcess(
            cli, arguments: ["--publish", "127.0.0.1:\(port)"], environment: ["TMPDIR": temporary])
        let third = cli.run(arguments: replica + ["--once"])
        #expect(third.status == 0, "\(third.stderr)")
        #expect(third.stdout.contains("1 full copies"), "\(third.stdout)")
        #expect(try Self.answers(into + "/copy") == Self.answers(cli.indexPath))

        let status = try #require(
            cli.json(cli.run(arguments: replica + ["--status", "--format", "json"])) as? [String: Any])
        #expect(status["full_copies"] as? Int == 2)
        #expect((status["changesets"] as? Int ?? 0) >= 1)
        #expect(status["last_error"] == nil)
        let cursor = try SearchReader(path: cli.indexPath).fetchLastClientState()
        #expect((status["cursor"] as? Int).map(String.init) == cursor)
        #expect(server.stop() == 0)
    }

    /// What a search prints that a replica must answer as its primary does: each hit's URI, title and score.
    static func ranking(_ cli: CLI, _ arguments: [String]) -> [String] {
        let json = cli.json(cli.run(arguments: ["search"] + arguments + ["--format", "json", "--limit", "100"]))
        let hits = (json as? [String: Any])?["hits"] as? [[String: Any]] ?? []
        return hits.map { "\($0["uri"] ?? "") \($0["title"] ?? "") \($0["score"] ?? "")" }
    }

    /// A search host: its own store, and a remote one (`stores add --serve --publish`) whose index it copies and
    /// whose rows its primary's `serve` gives. The remote store answers as its primary does; searched with the local
    /// one, both stores' hits come back; with its primary stopped, the local hits come back and the remote store is
    /// named as a failure, within its timeout.
    @Test func aRemoteStoreAnswersAsItsPrimaryAndItsHostDownIsAFailure() throws {
        let primary = CLI.withSamples()
        let uuid = try #require(primary.statusJSON()["store_uuid"] as? String)
        let publish = LoopbackPort.free()
        let server = try ServerProcess(primary, arguments: ["--publish", "127.0.0.1:\(publish)"])
        let project = primary("search", "kind:project", "--format", "ids").stdoutLines.first ?? ""
        #expect(primary("add", "item", "--project", project, "Zebra crossing repainted").status == 0)

        let host = CLI()
        #expect(host("init").status == 0)
        #expect(host("add", "project", "Harbour").status == 0)
        #expect(host("add", "item", "--project", "Harbour", "Zebra crossing at the quay").status == 0)
        let added = host(
            "stores", "add", "team", "--serve", "http://127.0.0.1:\(server.port)", "--publish",
            "127.0.0.1:\(publish)", "--timeout", "2")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("tracker://\(uuid)"), "\(added.stdout)")

        // No copy yet: the remote store is a failure that says what makes one; the local store answers.
        let before = try #require(
            host.json(host("search", "--stores", "all", "zebra", "--format", "json")) as? [String: Any])
        let waiting = before["failures"] as? [[String: Any]] ?? []
        #expect(waiting.first?["store"] as? String == "team")
        #expect((waiting.first?["message"] as? String)?.contains("spotlite replica") == true, "\(waiting)")

        #expect(Self.waitForPrimary(primary, toFind: "repainted"))
        let copied = host("replica", "--store", "team", "--once")
        #expect(copied.status == 0, "\(copied.stderr)")
        // The same index, so the same ranking: every hit, title and score as the primary's own search gives them.
        for query in ["tap", "zebra", "kind:item -tap", "\"leaking tap\"", "title:zebra OR boat"] {
            let remote = Self.ranking(host, ["--stores", "team", query])
            #expect(!remote.isEmpty || query == "\"leaking tap\"")
            #expect(remote == Self.ranking(primary, [query]), "\(query)")
        }
        let status = try #require(
            host.json(host("replica", "--store", "team", "--status", "--format", "json")) as? [String: Any])
        #expect(status["changes_behind"] as? Int == 0, "\(status)")
        #expect(status["primary_change"] as? Int == status["cursor"] as? Int)
        // The host's own status names its remote stores' replicas, with their lag.
        let hostStatus = try #require(host.json(host("status", "--format", "json")) as? [String: Any])
        let replicas = hostStatus["replicas"] as? [[String: Any]] ?? []
        #expect(replicas.first?["store"] as? String == "team", "\(hostStatus)")
        #expect(replicas.first?["changes_behind"] as? Int == 0)
        #expect(host("status").stdout.contains("replica:    team from 127.0.0.1:\(publish): copied "))
        #expect(host("status").stdout.contains(", 0 changes behind its primary"))
        #expect(primary.statusJSON()["replicas"] == nil)

        // Both stores' hits, each from its own store.
        let both = try #require(
            host.json(host("search", "--stores", "all", "zebra", "--format", "json")) as? [String: Any])
        let hits = both["hits"] as? [[String: Any]] ?? []
        #expect(Set(hits.compactMap { $0["store"] as? String }) == ["default", "team"], "\(hits)")
        #expect((both["failures"] as? [Any])?.isEmpty == true)

        // The primary stops answering (SIGSTOP: its socket still accepts, as a hung host's does): the local hits
        // come back, and the remote store is a failure that names its host and its timeout.
        kill(server.process.processIdentifier, SIGSTOP)
        defer { kill(server.process.processIdentifier, SIGCONT) }
        let started = Date()
        let cut = host("search", "--stores", "all", "zebra", "--format", "json")
        let waited = Date().timeIntervalSince(started)
        let outcome = try #require(host.json(cut) as? [String: Any])
        let shown = outcome["hits"] as? [[String: Any]] ?? []
        #expect(shown.compactMap { $0["store"] as? String } == ["default"], "\(shown)")
        let failures = outcome["failures"] as? [[String: Any]] ?? []
        #expect(failures.first?["store"] as? String == "team")
        #expect(failures.first?["code"] as? String == "remote")
        #expect(
            failures.first?["message"] as? String == "http://127.0.0.1:\(server.port) did not answer within 2.0 s")
        // Not a measure of speed: the search did not hang on the host (a generous bound over the 2 s timeout).
        #expect(waited < 30)
        kill(server.process.processIdentifier, SIGCONT)
        #expect(server.stop() == 0)
    }

    /// `watch --stores --publish`: one replication server for every store the watcher keeps, each index under its
    /// store's UUID.
    @Test func aWatcherOfSeveralStoresPublishesEachIndex() throws {
        let cli = CLI.withSamples()
        let other = CLI()
        #expect(other("init").status == 0)
        #expect(other("add", "project", "Harbour").status == 0)
        #expect(other("add", "item", "--project", "Harbour", "Quay lights repaired").status == 0)
        #expect(cli("stores", "add", "other", other.storePath).status == 0)
        let uuids = [cli, other].compactMap { $0.statusJSON()["store_uuid"] as? String }
        #expect(uuids.count == 2)
        let port = LoopbackPort.free()
        let log = cli.directory.file("watch.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let watcher = try cli.start(
            ["watch", "--stores", "all", "--publish", "127.0.0.1:\(port)"],
            stderr: try FileHandle(forWritingTo: URL(fileURLWithPath: log)))
        defer {
            if watcher.isRunning { kill(watcher.processIdentifier, SIGKILL) }
        }
        let deadline = Date().addingTimeInterval(30)
        while !Self.accepts(port) && Date() < deadline { usleep(50_000) }
        for uuid in uuids {
            let into = cli.directory.file("replica-\(uuid)")
            var copied = cli("replica", "--from", "127.0.0.1:\(port)", "--store", uuid, "--into", into, "--once")
            // The watcher builds the other store's index as it starts: the first copy may find none yet.
            let until = Date().addingTimeInterval(30)
            while copied.status != 0 && Date() < until {
                usleep(200_000)
                copied = cli("replica", "--from", "127.0.0.1:\(port)", "--store", uuid, "--into", into, "--once")
            }
            #expect(copied.status == 0, "\(copied.stderr) \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
            let reader = try SearchReader(path: into + "/copy")
            #expect(try reader.revisionMetadata("spotlite.store") == uuid)
        }
        kill(watcher.processIdentifier, SIGTERM)
        watcher.waitUntilExit()
        #expect(watcher.terminationStatus == 0)
    }

    /// `watch --stores` keeps a remote store's replica current beside the local stores it keeps live, and a second
    /// keeper of the same replica is refused in one line.
    @Test func aWatcherOfRemoteStoresKeepsTheirReplicas() throws {
        let primary = CLI.withSamples()
        let publish = LoopbackPort.free()
        let server = try ServerProcess(primary, arguments: ["--publish", "127.0.0.1:\(publish)"])
        let host = CLI()
        #expect(host("init").status == 0)
        let added = host(
            "stores", "add", "team", "--serve", "http://127.0.0.1:\(server.port)", "--publish",
            "127.0.0.1:\(publish)", "--interval", "0.2")
        #expect(added.status == 0, "\(added.stderr)")
        let log = host.directory.file("watch.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let watcher = try host.start(
            ["watch", "--stores", "all"], stderr: try FileHandle(forWritingTo: URL(fileURLWithPath: log)))
        defer {
            if watcher.isRunning { kill(watcher.processIdentifier, SIGKILL) }
        }
        // The replica follows a write on the primary by itself.
        let project = primary("search", "kind:project", "--format", "ids").stdoutLines.first ?? ""
        #expect(primary("add", "item", "--project", project, "Zebra crossing repainted").status == 0)
        let deadline = Date().addingTimeInterval(30)
        var found: [String] = []
        while found.isEmpty && Date() < deadline {
            usleep(100_000)
            found = host("search", "--stores", "team", "repainted", "--format", "ids").stdoutLines
        }
        #expect(found.count == 1, "\((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        let second = host("replica", "--store", "team", "--once")
        #expect(second.status == 6)
        #expect(second.stderr.contains("keeps"), "\(second.stderr)")
        kill(watcher.processIdentifier, SIGTERM)
        watcher.waitUntilExit()
        #expect(watcher.terminationStatus == 0)
        #expect(server.stop() == 0)
    }

    /// A replica run every interval catches up by itself, and a primary that is gone is an error it logs and retries,
    /// not an exit; the copy it has stays searchable.
    @Test func aKeptReplicaRetriesThroughAnOutage() throws {
        let cli = CLI.withSamples()
        let uuid = try #require(cli.statusJSON()["store_uuid"] as? String)
        let port = LoopbackPort.free()
        var server = try ServerProcess(cli, arguments: ["--publish", "127.0.0.1:\(port)"])
        let into = cli.directory.file("replica")
        let log = cli.directory.file("replica.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let keeper = try cli.start(
            ["replica", "--from", "127.0.0.1:\(port)", "--store", uuid, "--into", into, "--interval", "0.2"],
            stderr: try FileHandle(forWritingTo: URL(fileURLWithPath: log)))
        defer {
            if keeper.isRunning { kill(keeper.processIdentifier, SIGKILL) }
        }
        func copyFinds(_ word: String) -> Bool {
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                if let reader = try? SearchReader(path: into + "/copy"),
                    let query = try? SearchQueryParser().parse(word),
                    let hits = try? reader.search(query).hits, !hits.isEmpty
                {
                    return true
                }
                usleep(50_000)
            }
            return false
        }
        #expect(copyFinds("tap"))

        // The primary goes away (SIGKILL: its replication server goes with it), a write lands meanwhile.
        server.stop(SIGKILL)
        let deadline = Date().addingTimeInterval(10)
        while Self.accepts(port) && Date() < deadline { usleep(50_000) }
        #expect(!Self.accepts(port), "the replication server outlived its serve")
        let project = cli("search", "kind:project", "--format", "ids").stdoutLines.first ?? ""
        #expect(cli("add", "item", "--project", project, "Zebra crossing during the outage").status == 0)
        usleep(600_000)
        #expect(keeper.isRunning)
        #expect(copyFinds("tap"))
        #expect((try? String(contentsOfFile: log, encoding: .utf8))?.contains("cannot copy the index") == true)

        server = try ServerProcess(cli, arguments: ["--publish", "127.0.0.1:\(port)"])
        #expect(copyFinds("outage"))
        kill(keeper.processIdentifier, SIGTERM)
        keeper.waitUntilExit()
        #expect(keeper.terminationStatus == 0)
        #expect(server.stop() == 0)
    }

    @Test func publishingAndReplicasRefuseBadInputInOneLine() throws {
        let cli = CLI.withSamples()
        let uuid = try #require(cli.statusJSON()["store_uuid"] as? String)
        func expectOneLine(_ result: ProcessResult, _ status: Int32, _ text: String) {
            #expect(result.status == status, "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(result.stderr.contains(text), "\(result.stderr)")
        }
        expectOneLine(cli("serve", "--publish", "192.0.2.7:7701"), 2, "not a loopback address")
        expectOneLine(cli("serve", "--publish", "127.0.0.1:0"), 2, "--publish takes HOST:PORT")
        expectOneLine(cli("watch", "--publish", "127.0.0.1"), 2, "--publish takes HOST:PORT")

        // A port another program holds.
        let (holder, taken) = LoopbackPort.socket(listening: true)
        defer { close(holder) }
        expectOneLine(cli("serve", "--publish", "127.0.0.1:\(taken)"), 6, "cannot publish on 127.0.0.1:\(taken)")
        expectOneLine(cli("watch", "--publish", "127.0.0.1:\(taken)"), 6, "cannot publish on 127.0.0.1:\(taken)")

        let into = cli.directory.file("replica")
        let replica = ["replica", "--store", uuid, "--into", into]
        expectOneLine(cli.run(arguments: replica + ["--from", "nowhere"]), 2, "--from takes HOST:PORT")
        expectOneLine(
            cli.run(arguments: ["replica", "--from", "127.0.0.1:1", "--store", "no such store"]), 2,
            "--store takes a store's UUID")
        expectOneLine(cli.run(arguments: ["replica", "--store", uuid]), 2, "needs --from HOST:PORT")
        expectOneLine(cli.run(arguments: ["replica", "--store", "tap"]), 2, "no remote store named 'tap'")
        expectOneLine(
            cli.run(arguments: ["replica", "--from", "127.0.0.1:1", "--store", "tap"]), 2,
            "--from and --into come from the remote store 'tap'")
        // A remote store is named only when its serve answers, and says which store it is.
        expectOneLine(
            cli("stores", "add", "team", "--serve", "ftp://127.0.0.1:1", "--publish", "127.0.0.1:1"), 2,
            "--serve takes http://HOST:PORT")
        expectOneLine(
            cli("stores", "add", "team", "--serve", "http://127.0.0.1:1"), 2, "needs both --serve and --publish")
        let silent = LoopbackPort.free()
        expectOneLine(
            cli("stores", "add", "team", "--serve", "http://127.0.0.1:\(silent)", "--publish", "127.0.0.1:1"), 5,
            "cannot reach http://127.0.0.1:\(silent): Connection refused")
        #expect(!FileManager.default.fileExists(atPath: cli.directory.file("config/spotlite/stores.toml")))
        // A remote entry written by hand is checked as the command checks it.
        try FileManager.default.createDirectory(
            atPath: cli.directory.file("config/spotlite"), withIntermediateDirectories: true)
        for (entry, text) in [
            ("serve = 'http://127.0.0.1:1'", "is remote only with all of serve, publish and uuid"),
            ("serve = 'http://127.0.0.1:1'\npublish = '127.0.0.1:1'\nuuid = 'tap'", "uuid is a store's UUID"),
            (
                "serve = 'http://127.0.0.1:1'\npublish = '127.0.0.1:1'\nuuid = '\(uuid)'\ntimeout = 0.0",
                "timeout is seconds from 0.1 to 600"
            ),
        ] {
            try Data("[[stores]]\nname = 'team'\npath = 'replica'\nrole = 'shared'\n\(entry)\n".utf8).write(
                to: URL(fileURLWithPath: cli.directory.file("config/spotlite/stores.toml")))
            expectOneLine(cli("search", "--stores", "all", "tap"), 2, text)
        }
        try FileManager.default.removeItem(atPath: cli.directory.file("config/spotlite/stores.toml"))
        expectOneLine(
            cli.run(arguments: replica + ["--from", "127.0.0.1:1", "--status"]), 3, "holds no replica of store")
        // Nobody publishes there: the attempt fails, and says so in the replica's status.
        let nobody = LoopbackPort.free()
        expectOneLine(
            cli.run(arguments: replica + ["--from", "127.0.0.1:\(nobody)", "--once"]), 6, "cannot copy the index")
        let status = cli.run(arguments: replica + ["--from", "127.0.0.1:\(nobody)", "--status"])
        #expect(status.status == 0)
        #expect(status.stdout.contains("last copy: none yet"), "\(status.stdout)")
        #expect(status.stdout.contains("last attempt failed: cannot copy the index"), "\(status.stdout)")

        // A directory that holds someone's files, or another store's replica, is not written to.
        let occupied = cli.directory.file("occupied")
        try FileManager.default.createDirectory(atPath: occupied, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: occupied + "/notes.txt"))
        expectOneLine(
            cli("replica", "--from", "127.0.0.1:\(nobody)", "--store", uuid, "--into", occupied, "--once"), 2,
            "not empty and not a Spotlite replica")
        #expect(try FileManager.default.contentsOfDirectory(atPath: occupied) == ["notes.txt"])
        let other = UUID().uuidString.lowercased()
        expectOneLine(
            cli("replica", "--from", "127.0.0.1:\(nobody)", "--store", other, "--into", into, "--once"), 2,
            "is a replica of store \(uuid)")
    }
}
