import Foundation
import TestSupport
import Testing

/// `spotlite serve`: the real binary on a free loopback port, spoken to over a plain socket.
@Suite(.serialized) struct ServeTests {
    /// The JSON of an endpoint is what the CLI prints for the same question.
    @Test func theAPIAnswersWhatTheCommandsPrint() throws {
        let cli = CLI.withSamples()
        let server = try ServerProcess(cli)
        let health = try server.json("/healthz")
        #expect(health.status == 200)
        #expect((health.object as? [String: Any])?["status"] as? String == "ok")

        // Search: the same document as `search --format json` (but for how fresh the index is).
        let search = try server.request("GET", "/v1/search?q=leaking%20tap&facets=project,status")
        #expect(search.status == 200)
        #expect(search.headers["content-type"] == "application/json")
        let printed = cli("search", "leaking", "tap", "--facets", "project,status", "--format", "json")
        #expect(try Self.normalized(search.body) == Self.normalized(printed.stdoutData))
        // As a form or a browser encodes it: `+` is a space, %XX a byte; a malformed escape is a 400.
        let form = try server.request("GET", "/v1/search?q=leaking+tap&facets=project%2Cstatus")
        #expect(try Self.normalized(form.body) == Self.normalized(printed.stdoutData))
        #expect(try server.request("GET", "/v1/search?q=%ZZtap").status == 400)

        // Items and projects: what `resolve --format json` prints.
        let uri = try #require(
            cli("search", "leaking", "tap", "--format", "ids", "--limit", "1").stdout
                .split(separator: "\n").first.map(String.init))
        let uuid = String(uri.split(separator: "/").last ?? "")
        let item = try server.request("GET", "/v1/items/\(uuid)")
        #expect(item.status == 200)
        #expect(try Self.normalized(item.body) == Self.normalized(cli("resolve", uri, "--format", "json").stdoutData))
        let projectURI = try #require(
            ((cli.json(cli("resolve", uri, "--format", "json")) as? [String: Any])?["project"] as? [String: Any])?[
                "uri"]
                as? String)
        let project = try server.request("GET", "/v1/projects/\(projectURI.split(separator: "/").last ?? "")")
        #expect(project.status == 200)
        #expect(
            try Self.normalized(project.body)
                == Self.normalized(cli("resolve", projectURI, "--format", "json").stdoutData))

        // Resolve: each URI its row or its own error, in order.
        let store = String(uri.dropFirst("tracker://".count).prefix(36))
        let missing = "tracker://\(store)/item/00000000-0000-4000-8000-000000000000"
        let foreign = "tracker://11111111-1111-4111-8111-111111111111/item/\(uuid)"
        let resolved = try server.json(
            "/v1/resolve", method: "POST", body: ["uris": [uri, missing, foreign, "nonsense"]])
        #expect(resolved.status == 200)
        let results = try #require((resolved.object as? [String: Any])?["results"] as? [[String: Any]])
        #expect(results.count == 4)
        #expect(results[0]["uri"] as? String == uri && results[0]["kind"] as? String == "item")
        let codes = results.dropFirst().map { ($0["error"] as? [String: Any])?["code"] as? String }
        #expect(codes == ["not-found", "foreign-store", "usage"])
        // The command answers as the API does, entry for entry, and says the worst on its status.
        let command = cli("resolve", uri, missing, foreign, "nonsense", "--format", "json")
        #expect(command.status == 2)
        // Entry for entry, word for word, but a URI of another store: the command's detail names `stores add`.
        let sameEntries = { (object: Any?) throws -> String in
            var entries = try #require((object as? [String: Any])?["results"] as? [[String: Any]])
            var error = try #require(entries[2]["error"] as? [String: Any])
            error["detail"] = nil
            entries[2]["error"] = error
            return try Self.normalized(JSONSerialization.data(withJSONObject: ["results": entries]))
        }
        #expect(try sameEntries(cli.json(command)) == sameEntries(resolved.object))
        let lines = cli("resolve", uri, missing, foreign, "nonsense", "--format", "jsonl").stdoutLines
        #expect(lines.count == 4)
        #expect(lines.last?.contains(#""uri":"nonsense","error":{"#) == true)

        // Status: what `status --format json` prints.
        let status = try server.json("/v1/status")
        #expect(status.status == 200)
        let fields = try #require(status.object as? [String: Any])
        #expect(fields["items"] as? Int == 40 && fields["projects"] as? Int == 5)
        #expect(fields["watcher_pid"] as? Int == Int(server.process.processIdentifier))

        // The API's description and the page's script and style, served from the binary, are the files in the
        // repository byte for byte (SwiftPM embeds them at build time).
        for (path, name) in [
            ("/openapi.json", "openapi.json"), ("/assets/search.js", "search.js"), ("/assets/page.css", "page.css"),
        ] {
            let served = try server.request("GET", path)
            let file = try Data(
                contentsOf: URL(fileURLWithPath: Repository.root + "/Sources/SpotliteServer/Resources/" + name))
            #expect(served.text == String(decoding: file, as: UTF8.self), "\(path) differs from Resources/\(name)")
        }

        let metrics = try server.request("GET", "/metrics")
        #expect(metrics.status == 200)
        #expect(
            metrics.text.contains("spotlite_http_requests_total{route=\"/v1/search\",status=\"200\"}"),
            "\(metrics.text)")
        #expect(metrics.text.contains("spotlite_index_documents 49"), "\(metrics.text)")
        #expect(metrics.text.contains("spotlite_http_request_duration_seconds_bucket"))
        #expect(server.stop() == 0)
    }

    /// Errors are RFC 9457 problem documents with the CLI's error code.
    @Test func errorsAreProblemDocumentsWithTheCLIsCodes() throws {
        let cli = CLI.withSamples()
        let server = try ServerProcess(cli, arguments: ["--max-event-streams", "1"])
        func problem(_ path: String, method: String = "GET", body: Data? = nil) throws -> (Int, [String: Any]) {
            let type = body == nil ? [:] : ["Content-Type": "application/json"]
            let response = try server.request(method, path, headers: type, body: body)
            #expect(response.headers["content-type"] == "application/problem+json", "\(path)")
            return (response.status, (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:])
        }
        let (syntax, syntaxBody) = try problem("/v1/search?q=tap%20AND")
        #expect(syntax == 400 && syntaxBody["code"] as? String == "usage" && syntaxBody["exit_code"] as? Int == 2)
        #expect((syntaxBody["detail"] as? String)?.hasPrefix("cannot parse the query 'tap AND'") == true)
        #expect(syntaxBody["type"] as? String == "https://spotlite.invalid/problems/usage")
        #expect(try problem("/v1/search").0 == 400)
        #expect(try problem("/v1/search?q=tap&limit=0").0 == 400)
        #expect(try problem("/v1/search?q=tap&sort=sideways").0 == 400)
        #expect(try problem("/v1/search?q=\(String(repeating: "a", count: 9_000))").0 == 400)
        let (missing, missingBody) = try problem("/v1/items/00000000-0000-4000-8000-000000000000")
        #expect(
            missing == 404 && missingBody["code"] as? String == "not-found" && missingBody["exit_code"] as? Int == 3)
        #expect(try problem("/v1/items/not-a-uuid").0 == 400)
        #expect(try problem("/v1/no/such/route").0 == 404)
        #expect(try problem("/v1/resolve", method: "POST", body: Data("{".utf8)).0 == 400)
        let large = Data(("{\"uris\": [\"" + String(repeating: "x", count: 2 << 20) + "\"]}").utf8)
        #expect(try problem("/v1/resolve", method: "POST", body: large).0 == 413)
        let many = try JSONSerialization.data(withJSONObject: ["uris": Array(repeating: "x", count: 1_001)])
        #expect(try problem("/v1/resolve", method: "POST", body: many).0 == 413)
        #expect(try problem("/v1/subscriptions", method: "POST", body: Data("{\"query\": \"tap AND\"}".utf8)).0 == 400)
        #expect(try problem("/v1/subscriptions/nope/events").0 == 404)

        // The second event stream past --max-event-streams 1 waits its turn: 429.
        let made = try server.json("/v1/subscriptions", method: "POST", body: ["query": "tap"])
        let id = try #require((made.object as? [String: Any])?["id"] as? String)
        let first = try server.events(id)
        #expect(first.status == 200)
        let (busy, busyBody) = try problem("/v1/subscriptions/\(id)/events")
        #expect(busy == 429, "\(busyBody)")
        first.close()
        #expect(server.stop() == 0)
    }

    /// A search that outruns --search-time-limit is stopped and answered 503, with a problem that says what to do;
    /// the server goes on answering.
    @Test func aSearchPastTheTimeLimitIsAnswered503() throws {
        let cli = CLI.withSamples()
        let server = try ServerProcess(cli, arguments: ["--search-time-limit", "0.000001"])
        let response = try server.request("GET", "/v1/search?q=tap")
        #expect(response.status == 503)
        #expect(response.headers["content-type"] == "application/problem+json")
        let detail = ((try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any])?["detail"] as? String
        #expect(detail?.contains("narrow the query") == true, "\(detail ?? "")")
        #expect(try server.request("GET", "/healthz").status == 200)
        #expect(server.stop() == 0)
        #expect(cli("serve", "--search-time-limit", "0").stderr.contains("--search-time-limit takes seconds above 0"))
    }

    /// Searches that outrun the limit, many at once for seconds: each is answered 503 and the server stays up. Xapian's
    /// own time limit (a POSIX timer whose notification thread could write into a match's stack after it returned)
    /// crashed it here within a second or two (SIGSEGV, SIGILL).
    @Test func manySearchesPastTheTimeLimitAtOnceLeaveTheServerUp() throws {
        let cli = CLI.withSamples()
        let server = try ServerProcess(cli, arguments: ["--search-time-limit", "0.000001"])
        nonisolated(unsafe) let shared = server  // requests open sockets of their own
        let lock = NSLock()
        nonisolated(unsafe) var seen: [Int: Int] = [:]  // statuses and their counts, under `lock`
        let until = Date().addingTimeInterval(4)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            let paths = ["/v1/search?q=tap", "/v1/search?q=leak%20OR%20paint", "/v1/search?q=t*&sort=modified"]
            var mine: [Int: Int] = [:]
            var count = 0
            while Date() < until && shared.process.isRunning {
                let status =
                    (try? shared.request("GET", paths[(thread + count) % paths.count], timeout: 10).status) ?? 0
                mine[status, default: 0] += 1
                count += 1
            }
            lock.withLock { seen.merge(mine, uniquingKeysWith: +) }
        }
        #expect(server.process.isRunning, "\(seen)\n\(server.logText)")
        #expect(Set(seen.keys) == [503], "\(seen)")
        #expect(seen.values.reduce(0, +) > 100, "\(seen)")
        #expect(try server.request("GET", "/healthz").status == 200)
        #expect(server.stop() == 0)
    }

    /// Loopback only unless a token guards the server; with one, every request but /healthz needs it.
    @Test func anAddressBeyondLoopbackNeedsATokenAndEveryRequestCarriesIt() throws {
        let cli = CLI.withSamples()
        let open = cli("serve", "--listen", "0.0.0.0:0")
        #expect(open.status == 2)
        #expect(open.stderr.contains("is not a loopback address; give --token-file"), "\(open.stderr)")
        let short = cli.directory.file("short-token")
        try "abc\n".write(toFile: short, atomically: true, encoding: .utf8)
        #expect(cli("serve", "--token-file", short).status == 2)

        let tokenFile = cli.directory.file("token")
        let token = "0123456789abcdef0123456789abcdef"
        try (token + "\n").write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let server = try ServerProcess(cli, arguments: ["--token-file", tokenFile])
        #expect(try server.request("GET", "/healthz").status == 200)
        let denied = try server.request("GET", "/v1/status")
        #expect(denied.status == 401 && denied.headers["www-authenticate"] == "Bearer")
        #expect(try server.request("GET", "/v1/status", headers: ["Authorization": "Bearer wrong"]).status == 401)
        #expect(try server.request("GET", "/v1/status", headers: ["Authorization": "Bearer \(token)x"]).status == 401)
        #expect(try server.request("GET", "/v1/status", headers: ["Authorization": "Bearer \(token)"]).status == 200)
        #expect(try server.request("GET", "/", headers: ["Authorization": "Bearer \(token)"]).status == 200)
        // No CORS headers unless --cors names the origin.
        #expect(try server.request("GET", "/healthz").headers["access-control-allow-origin"] == nil)
        #expect(server.stop() == 0)

        let cors = try ServerProcess(cli, arguments: ["--cors", "https://tools.example"])
        #expect(try cors.request("GET", "/healthz").headers["access-control-allow-origin"] == "https://tools.example")
        let preflight = try cors.request("OPTIONS", "/v1/search")
        #expect(preflight.status == 204 && preflight.headers["access-control-allow-methods"] == "GET, POST, DELETE")
        #expect(cors.stop() == 0)
    }

    /// `serve` keeps the index live as `watch` does: each turns the other away, naming it.
    @Test func serveAndWatchTurnEachOtherAway() throws {
        let cli = CLI.withSamples()
        let server = try ServerProcess(cli)
        let turnedAway = cli("watch")
        #expect(turnedAway.status == 6)
        #expect(
            turnedAway.stderr.contains(
                "is already kept live by `spotlite serve` (process \(server.process.processIdentifier))"),
            "\(turnedAway.stderr)")
        // `status` names the server as what keeps the index live.
        let status = cli("status")
        #expect(
            status.stdout.contains(
                "process \(server.process.processIdentifier) keeps the index live (spotlite serve)"), "\(status.stdout)"
        )
        // A write through the store reaches the served index at once (the server's watcher applies it).
        #expect(cli("add", "item", "--project", "Garden", "Prune the zeppelin roses").status == 0)
        let deadline = Date().addingTimeInterval(10)
        var found = 0
        while found == 0 && Date() < deadline {
            found = ((try server.json("/v1/search?q=zeppelin").object as? [String: Any])?["total"] as? Int) ?? 0
        }
        #expect(found == 1)
        #expect(server.stop() == 0)

        // Once the watcher holds the index (not before: a serve that won the race would serve on), serve is refused.
        let watch = try RunningWatch(cli)
        try #require(watch.waitUntilWatching(), "\(watch.log)")
        let refused = cli("serve", "--listen", "127.0.0.1:0")
        #expect(refused.status == 6, "\(refused.stderr)")
        #expect(
            refused.stderr.contains("is already kept live by `spotlite watch` (process \(watch.pid))"),
            "\(refused.stderr)")
        #expect(watch.stop().status == 0)
    }

    /// Subscriptions: one per normalised query; events for rows entering, changing in and leaving the results,
    /// whoever writes; a stream resumed with Last-Event-ID gets every later event once, across a restart and a kill.
    @Test func subscriptionEventsFollowEveryWriterAndResumeWithoutLossOrRepeat() throws {
        let cli = CLI.withSamples()
        var server = try ServerProcess(cli)
        let made = try server.json("/v1/subscriptions", method: "POST", body: ["query": "zeppelin"])
        #expect(made.status == 201)
        let subscription = try #require(made.object as? [String: Any])
        let id = try #require(subscription["id"] as? String)
        let again = try server.json("/v1/subscriptions", method: "POST", body: ["query": "  Zeppelin "])
        #expect(again.status == 200)
        #expect((again.object as? [String: Any])?["id"] as? String == id)
        let listed = try server.json("/v1/subscriptions")
        #expect(((listed.object as? [String: Any])?["subscriptions"] as? [[String: Any]])?.count == 1)

        let stream = try server.events(id)
        #expect(stream.status == 200 && stream.headers["content-type"] == "text/event-stream")
        // Writers: the CLI, then a plain sqlite3 shell (an update, then a delete).
        let uri = cli("add", "item", "--project", "Garden", "Repair the zeppelin shed").stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let entityID = String(uri.split(separator: "/").last ?? "")
        let added = try #require(stream.next())
        #expect(added.type == "added")
        #expect(added.data.contains("\"uri\":\"\(uri)\""))
        #expect(cli.sqlite("UPDATE items SET detail = 'the zeppelin shed leaks' WHERE id = '\(entityID)';").status == 0)
        let changed = try #require(stream.next())
        #expect(changed.type == "changed")
        stream.close()

        // Events while nobody listens: recorded all the same.
        #expect(
            cli.sqlite("UPDATE items SET title = 'Repair the garden shed', detail = '' WHERE id = '\(entityID)';")
                .status == 0)
        Thread.sleep(forTimeInterval: 0.5)
        // Killed: no graceful anything.
        #expect(server.stop(SIGKILL) == nil || !server.process.isRunning)
        #expect(cli("add", "item", "--project", "Home renovation", "Zeppelin model for the shelf").status == 0)
        server = try ServerProcess(cli)
        let resumed = try server.events(id, lastEventID: changed.id)
        let rest = resumed.drain()
        #expect(rest.map(\.type) == ["removed", "added"], "\(rest)")
        #expect(Set(rest.compactMap(\.id)).count == rest.count && !rest.contains { $0.id == changed.id })
        resumed.close()
        // From the first event again: the whole history once, in order.
        let replay = try server.events(id, lastEventID: "0.0").drain()
        // ?after= takes an event id too, or a change-log position alone (0: every event kept).
        #expect(try server.events(id, after: changed.id).drain().map(\.type) == ["removed", "added"])
        #expect(try server.events(id, after: "0").drain().map(\.type) == replay.map(\.type))
        #expect(replay.map(\.type) == ["added", "changed", "removed", "added"], "\(replay)")
        let ids = replay.compactMap(\.id)
        #expect(
            ids
                == ids.sorted { a, b in
                    let (x, y) = (a.split(separator: "."), b.split(separator: "."))
                    return (Int(x[0]) ?? 0, Int(x[1]) ?? 0) < (Int(y[0]) ?? 0, Int(y[1]) ?? 0)
                })

        #expect(try server.request("DELETE", "/v1/subscriptions/\(id)").status == 204)
        #expect(try server.request("DELETE", "/v1/subscriptions/\(id)").status == 404)
        #expect(server.stop() == 0)
    }

    /// SIGTERM: requests in flight finish, event streams end, and the server exits 0.
    @Test func sigtermDrainsAndExitsZero() throws {
        let cli = CLI.withSamples()
        let server = try ServerProcess(cli)
        let made = try server.json("/v1/subscriptions", method: "POST", body: ["query": "tap"])
        let id = try #require((made.object as? [String: Any])?["id"] as? String)
        let stream = try server.events(id)
        let started = Date()
        #expect(server.stop(SIGTERM, timeout: 20) == 0, "\(server.logText)")
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(stream.next(timeout: 2) == nil)  // the stream ended with the server
        #expect(cli("verify").status == 0)
    }

    /// `spotlite subscribe` prints the events of the same subscriptions, as JSON Lines, with no server running.
    @Test func subscribePrintsEventsAsJSONLines() throws {
        let cli = CLI.withSamples()
        let output = cli.directory.file("events.jsonl")
        FileManager.default.createFile(atPath: output, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = ["subscribe", "zeppelin"]
        process.environment = ProcessInfo.processInfo.environment.merging(cli.environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardError = FileHandle.nullDevice
        try process.run()
        Thread.sleep(forTimeInterval: 1)
        let uri = cli("add", "item", "--project", "Garden", "Zeppelin spotting").stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        var lines: [String] = []
        let deadline = Date().addingTimeInterval(15)
        while lines.isEmpty && Date() < deadline {
            usleep(100_000)
            lines = ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n").map(
                String.init)
        }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let event = try #require(
            lines.first.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any])
        #expect(event["type"] as? String == "added" && event["uri"] as? String == uri, "\(lines)")

        // The subscription it saved is listed, and deleted, from the command line too.
        let id = try #require(event["subscription"] as? String)
        let listed = cli("subscriptions")
        #expect(listed.status == 0 && listed.stdoutLines.count == 1 && listed.stdout.hasPrefix(id + "\t"))
        #expect(listed.stdout.hasSuffix("\tspotlite\tzeppelin\n"), "\(listed.stdout)")
        let json = cli.json(cli("subscriptions", "list", "--format", "json")) as? [String: Any]
        #expect((json?["subscriptions"] as? [[String: Any]])?.first?["query"] as? String == "zeppelin")
        #expect(cli("subscriptions", "delete", id).stdout == "deleted \(id)\n")
        let again = cli("subscriptions", "delete", id)
        #expect(again.status == 3 && again.stderr.contains("no subscription \(id)"))
        #expect(cli("subscriptions").stdout.isEmpty)
    }

    /// The page, and the item pages it links to, show the store's text as text.
    @Test func pagesShowTextAsTextNeverAsMarkup() throws {
        let cli = CLI.withSamples()
        let uri = cli(
            "add", "item", "--project", "Garden", "<script>alert(1)</script>", "--detail", "a <b>bold</b> claim"
        )
        .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try ServerProcess(cli)
        let page = try server.request("GET", "/")
        #expect(page.status == 200 && page.headers["content-type"] == "text/html; charset=utf-8")
        #expect(page.text.contains("<input id=\"q\""))
        let item = try server.request("GET", "/items/\(uri.split(separator: "/").last ?? "")")
        #expect(item.status == 200)
        #expect(item.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(!item.text.contains("<script>alert(1)"))
        #expect(item.text.contains("a &lt;b&gt;bold&lt;/b&gt; claim"))
        #expect(server.stop() == 0)
    }

    /// A JSON document with what depends on timing left out (how far behind the index was), keys sorted.
    static func normalized(_ data: Data) throws -> String {
        var object = try JSONSerialization.jsonObject(with: data)
        if var dictionary = object as? [String: Any] {
            dictionary["changes_behind"] = nil
            object = dictionary
        }
        return String(
            decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }
}
