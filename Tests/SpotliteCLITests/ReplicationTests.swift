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
            cli.run(arguments: ["replica", "--from", "127.0.0.1:1", "--store", "tap"]), 2,
            "--store takes a store's UUID")
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
