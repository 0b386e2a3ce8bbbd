import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `spotlite serve` as a hostile page, a careless client and a slow one meet it: the real binary on loopback, spoken
/// to with the exact bytes of each attack over a plain socket.
@Suite(.serialized) struct ServeSecurityTests {
    /// DNS rebinding: a page on another site whose name now resolves to 127.0.0.1 sends its own name as `Host`.
    @Test func aRebindingNameNeverReachesTheStore() throws {
        let cli = CLI.withSamples()
        let server = try ServerProcess(cli, arguments: ["--allow-host", "tracker.example"])
        let port = server.port
        for path in ["/v1/search?q=tap", "/v1/status", "/", "/v1/subscriptions"] {
            let rebound = try server.request("GET", path, headers: ["Host": "attacker.example:\(port)"])
            #expect(rebound.status == 421, "\(path): \(rebound.text)")
            #expect(!rebound.text.contains("tracker://"))
        }
        for host in ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)", "tracker.example:\(port)", "127.0.0.1"]
        {
            #expect(try server.request("GET", "/v1/search?q=tap", headers: ["Host": host]).status == 200, "\(host)")
        }
        #expect(try server.request("GET", "/v1/status", headers: ["Host": "localhost.attacker.example"]).status == 421)
        #expect(server.stop() == 0)
    }

    /// Cross-site writes: a browser sends a form or `text/plain` to any site without asking first; the server takes
    /// JSON only as `application/json`, and a state-changing request from another origin not at all.
    @Test func crossSiteWritesAreRefusedAndMakeNothing() throws {
        let cli = CLI.withSamples()
        let server = try ServerProcess(cli)
        let body = Data(#"{"query":"tap"}"#.utf8)
        let plain = try server.request("POST", "/v1/subscriptions", headers: ["Content-Type": "text/plain"], body: body)
        #expect(plain.status == 415, "\(plain.text)")
        let form = try server.request(
            "POST", "/v1/subscriptions", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: body)
        #expect(form.status == 415)
        #expect(try server.request("POST", "/v1/subscriptions", body: body).status == 415)  // no type at all
        let json = ["Content-Type": "application/json"]
        let foreign = try server.request(
            "POST", "/v1/subscriptions", headers: json.merging(["Origin": "https://evil.example"]) { $1 }, body: body)
        #expect(foreign.status == 403, "\(foreign.text)")
        let crossSite = try server.request(
            "POST", "/v1/subscriptions", headers: json.merging(["Sec-Fetch-Site": "cross-site"]) { $1 }, body: body)
        #expect(crossSite.status == 403)
        #expect(cli.sqlite("SELECT count(*) FROM subscriptions;").stdout == "0\n")
        // The server's own page, and a tool that sends no Origin, may.
        let own = try server.request(
            "POST", "/v1/subscriptions", headers: json.merging(["Origin": "http://127.0.0.1"]) { $1 }, body: body)
        #expect(own.status == 201, "\(own.text)")
        let id = try #require((try JSONSerialization.jsonObject(with: own.body) as? [String: Any])?["id"] as? String)
        let delete = try server.request(
            "DELETE", "/v1/subscriptions/\(id)", headers: ["Origin": "https://evil.example"])
        #expect(delete.status == 403)
        #expect(cli.sqlite("SELECT count(*) FROM subscriptions;").stdout == "1\n")
        #expect(server.stop() == 0)
    }

    /// Subscriptions are capped per store, in rows each, and in rows together: 150 posts of broad queries no longer
    /// grow the store without bound.
    @Test func subscriptionsAndTheRowsTheyFollowAreCapped() throws {
        let cli = CLI.withSamples()
        let server = try ServerProcess(
            cli,
            arguments: [
                "--max-subscriptions", "5", "--max-subscription-rows", "20", "--max-subscription-rows-total", "25",
            ])
        func subscribe(_ query: String) throws -> (Int, String) {
            let response = try server.json("/v1/subscriptions", method: "POST", body: ["query": query])
            return (response.status, ((response.object as? [String: Any])?["detail"] as? String) ?? "")
        }
        let broad = try subscribe("kind:item")  // 40 items
        #expect(broad.0 == 400 && broad.1.contains("matches more than 20 items and projects"), "\(broad)")
        #expect(try subscribe("project:garden").0 == 201)  // 9 rows: items, the project, a message
        #expect(try subscribe("project:\"Home renovation\"").0 == 201)
        let pastTotal = try subscribe("project:\"Q3 product launch\"")
        #expect(pastTotal.0 == 409 && pastTotal.1.contains("allowed in all"), "\(pastTotal)")
        for word in ["tap", "paint", "boiler"] { #expect(try subscribe(word).0 == 201) }
        let sixth = try subscribe("hose")
        #expect(sixth.0 == 409 && sixth.1.contains("the most allowed (5)"), "\(sixth)")
        // The same query again is the same subscription, cap or not.
        #expect(try subscribe("TAP").0 == 200)
        // Many posts in a row: none made past the caps, and the rows stay bounded.
        for number in 0..<150 { _ = try subscribe("fix\(number) OR kind:item") }
        #expect(cli.sqlite("SELECT count(*) FROM subscriptions;").stdout == "5\n")
        let rows =
            Int(
                cli.sqlite("SELECT count(*) FROM subscription_members;").stdout.trimmingCharacters(
                    in: .whitespacesAndNewlines)) ?? -1
        #expect(rows == 23, "\(rows)")  // garden 9, Home renovation 10, tap 2, paint 1, boiler 1
        #expect(server.stop() == 0)
    }

    /// Bodies are read as strict JSON: a type that is not the one asked for, a key not in the request's shape, a
    /// key given twice and a NUL in a query are refused, not guessed at.
    @Test func requestBodiesAreReadStrictly() throws {
        let cli = CLI.withSamples()
        let server = try ServerProcess(cli)
        let made = try server.json("/v1/subscriptions", method: "POST", body: ["query": "tap"])
        #expect(made.status == 201)
        func post(_ path: String, _ text: String) throws -> (Int, String) {
            let response = try server.request(
                "POST", path, headers: ["Content-Type": "application/json; charset=utf-8"], body: Data(text.utf8))
            return (response.status, response.text)
        }
        let nul = try post("/v1/subscriptions", #"{"query":"tap\u0000x"}"#)
        #expect(nul.0 == 400 && nul.1.contains("control character"), "\(nul)")
        #expect(try post("/v1/subscriptions", #"{"query":"tap","spotlight":"yes"}"#).0 == 400)
        #expect(try post("/v1/subscriptions", #"{"query":"tap","spotlight":1}"#).0 == 400)
        #expect(try post("/v1/subscriptions", #"{"query":"tap","limit":5}"#).0 == 400)
        #expect(try post("/v1/subscriptions", #"{"query":"tap","query":"hose"}"#).0 == 400)
        #expect(try post("/v1/subscriptions", #"["tap"]"#).0 == 400)
        #expect(try post("/v1/resolve", #"{"uris":"tracker://x"}"#).0 == 400)
        #expect(try post("/v1/resolve", #"{"uris":[1]}"#).0 == 400)
        #expect(try post("/v1/resolve", #"{"uris":[]}"#).0 == 200)
        #expect(try post("/v1/subscriptions", #"{"query":"tap","spotlight":false}"#).0 == 200)
        #expect(cli.sqlite("SELECT count(*) FROM subscriptions;").stdout == "1\n")
        #expect(server.stop() == 0)
    }

    /// A stream's slot is free as soon as its client leaves, not at the next heartbeat (15 s): a client that
    /// connects and closes over and over cannot hold the streams of everyone else.
    @Test func aStreamSlotIsFreedWhenItsClientLeaves() throws {
        let cli = CLI.withSamples()
        let server = try ServerProcess(cli, arguments: ["--max-event-streams", "2"])
        let made = try server.json("/v1/subscriptions", method: "POST", body: ["query": "tap"])
        let id = try #require((made.object as? [String: Any])?["id"] as? String)
        // The slot is freed as the server learns the connection closed: a moment, not a heartbeat (15 s).
        func stream(within seconds: Double) throws -> EventStream? {
            let deadline = Date().addingTimeInterval(seconds)
            while true {
                let stream = try server.events(id)
                if stream.status == 200 { return stream }
                stream.close()
                guard Date() < deadline else { return nil }
                usleep(10_000)
            }
        }
        let started = Date()
        for _ in 0..<30 {
            let opened = try stream(within: 2)
            #expect(opened != nil)
            opened?.close()
        }
        // Two streams held open fill the slots; the third waits its turn; when one closes, the next gets in.
        let first = try #require(try stream(within: 2))
        let second = try #require(try stream(within: 2))
        #expect(try server.events(id).status == 429)
        first.close()
        #expect(try stream(within: 2) != nil)
        // Thirty-odd streams opened and closed, each slot free again at once: far within one heartbeat.
        #expect(Date().timeIntervalSince(started) < 10, "\(Date().timeIntervalSince(started)) s")
        second.close()
        #expect(server.stop() == 0)
    }

    /// Slow clients: 150 sending their headers a byte at a time, 150 sending a body a byte at a time. Each is closed
    /// by its deadline, and none keeps a normal request from an answer meanwhile.
    @Test func slowSocketsAreClosedAndLockNobodyOut() throws {
        let cli = CLI.withSamples()
        let server = try ServerProcess(cli, arguments: ["--header-timeout", "2", "--body-timeout", "2"])
        var slow: [HTTPConnection] = []
        for number in 0..<300 {
            let connection = try HTTPConnection(port: server.port, timeout: 10)
            if number % 2 == 0 {
                try connection.sendRaw(Array("GET /v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8))
            } else {
                try connection.sendRaw(
                    Array(
                        ("POST /v1/resolve HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                            + "Content-Length: 100000\r\n\r\n{\"uris\": [").utf8))
            }
            slow.append(connection)
        }
        let opened = Date()
        // While they trickle, a normal request is answered.
        for _ in 0..<3 {
            for connection in slow { try? connection.sendRaw([UInt8(ascii: "a")]) }
            let answer = try server.request("GET", "/v1/search?q=tap", timeout: 5)
            #expect(answer.status == 200)
            usleep(300_000)
        }
        // By the deadline (2 s, and a little), every one of them has been closed by the server.
        let open = slow.filter { !$0.isClosedByServer(timeout: max(0.1, 4 - Date().timeIntervalSince(opened))) }
        #expect(open.isEmpty, "\(open.count) of 300 slow connections still open")
        #expect(try server.request("GET", "/healthz").status == 200)
        #expect(server.stop() == 0)
    }

    /// Behind a token, a browser gets in once (the token for an HttpOnly, SameSite=Strict cookie), its links work,
    /// and its state-changing requests need the session's CSRF token too.
    @Test func aBrowserGetsInBehindATokenWithoutWeakeningTheAPI() throws {
        let cli = CLI.withSamples()
        let tokenFile = cli.directory.file("token")
        let token = "0123456789abcdef0123456789abcdef"
        try (token + "\n").write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let server = try ServerProcess(cli, arguments: ["--token-file", tokenFile])
        // The page's shell needs no token; the store's data does.
        #expect(try server.request("GET", "/").status == 200)
        #expect(try server.request("GET", "/assets/search.js").status == 200)
        #expect(try server.request("GET", "/v1/status").status == 401)
        let uuid = "2bfe362f-b0e0-581f-88d9-e093789200ec"
        #expect(try server.request("GET", "/items/\(uuid)").status == 401)
        // The scheme in any case.
        #expect(try server.request("GET", "/v1/status", headers: ["Authorization": "bearer \(token)"]).status == 200)

        #expect(try server.request("POST", "/v1/session").status == 401)
        let session = try server.request("POST", "/v1/session", headers: ["Authorization": "Bearer \(token)"])
        #expect(session.status == 201)
        let cookie = try #require(session.headers["set-cookie"])
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/"))
        let pair = String(cookie.split(separator: ";")[0])
        let csrf = try #require(
            (try JSONSerialization.jsonObject(with: session.body) as? [String: Any])?["csrf"] as? String)
        #expect(try server.request("GET", "/v1/status", headers: ["Cookie": pair]).status == 200)
        #expect(try server.request("GET", "/items/\(uuid)", headers: ["Cookie": pair]).status == 200)
        #expect(try server.request("GET", "/v1/status", headers: ["Cookie": pair + "x"]).status == 401)
        let got = try server.request("GET", "/v1/session", headers: ["Cookie": pair])
        #expect((try JSONSerialization.jsonObject(with: got.body) as? [String: Any])?["csrf"] as? String == csrf)

        let body = Data(#"{"query":"tap"}"#.utf8)
        let json = ["Content-Type": "application/json", "Cookie": pair]
        #expect(try server.request("POST", "/v1/subscriptions", headers: json, body: body).status == 403)
        let wrong = json.merging(["X-CSRF-Token": String(csrf.reversed())]) { $1 }
        #expect(try server.request("POST", "/v1/subscriptions", headers: wrong, body: body).status == 403)
        let right = json.merging(["X-CSRF-Token": csrf]) { $1 }
        let foreign = right.merging(["Origin": "https://evil.example"]) { $1 }
        #expect(try server.request("POST", "/v1/subscriptions", headers: foreign, body: body).status == 403)
        #expect(try server.request("POST", "/v1/subscriptions", headers: right, body: body).status == 201)
        // Ending the session ends the cookie's access.
        #expect(
            try server.request("DELETE", "/v1/session", headers: ["Cookie": pair, "X-CSRF-Token": csrf]).status == 204)
        #expect(try server.request("GET", "/v1/status", headers: ["Cookie": pair]).status == 401)
        #expect(server.stop() == 0)
    }

    /// The pages allow the server's own script only, and show every hostile string as text: no tag but the
    /// template's, no inline script or handler, no raw control character.
    @Test func pagesShowHostileTextAsTextUnderAStrictPolicy() throws {
        let cli = CLI.withSamples()
        let rows = try HostileRows(cli)
        let server = try ServerProcess(cli)
        let search = try server.request("GET", "/")
        let policy = try #require(search.headers["content-security-policy"])
        #expect(!policy.contains("unsafe-inline") && policy.contains("script-src 'self'"), "\(policy)")
        for path in rows.pagePaths {
            let page = try server.request("GET", path)
            #expect(page.status == 200, "\(path)")
            #expect(page.headers["content-security-policy"] == policy)
            try HostileRows.expectOnlyTemplateMarkup(page.body, path: path)
        }
        #expect(server.stop() == 0)
    }

    /// A client resuming from an event id ahead of every event the subscription has (its store restored from an
    /// older copy) is told to start again, not left waiting for events that never come.
    @Test func anEventIDAheadOfTheLogGetsAReset() throws {
        let cli = CLI.withSamples()
        let server = try ServerProcess(cli)
        let made = try server.json("/v1/subscriptions", method: "POST", body: ["query": "tap"])
        let id = try #require((made.object as? [String: Any])?["id"] as? String)
        let ahead = try server.events(id, lastEventID: "999999.0")
        #expect(ahead.next(timeout: 5)?.type == "reset")
        ahead.close()
        let fromNow = try server.events(id, after: "0")
        #expect(fromNow.next(timeout: 1)?.type != "reset")
        fromNow.close()
        #expect(server.stop() == 0)
    }

    /// `stores=` naming no store is a bad request, not a server failure.
    @Test func aSearchOfNoStoresIsABadRequest() throws {
        let cli = CLI.withSamples()
        let server = try ServerProcess(cli, arguments: ["--stores", "all"])
        for selection in ["", ",,,", "%2C"] {
            let response = try server.request("GET", "/v1/search?q=tap&stores=\(selection)")
            #expect(response.status == 400, "stores=\(selection): \(response.text)")
        }
        #expect(try server.request("GET", "/v1/search?q=tap&stores=all").status == 200)
        #expect(server.stop() == 0)
    }

    /// `--listen NAME` counts as loopback only if the address the name resolves to is: a hosts file that maps
    /// `localhost` elsewhere gets a refusal without a token, not a store served on that address.
    @Test func aNameIsTrustedByTheAddressItResolvesTo() throws {
        let cli = CLI.withSamples()
        let hosts = cli.directory.file("hosts")
        let script = """
            printf '192.0.2.1 localhost\\n' > "$HOSTS"
            mount --bind "$HOSTS" /etc/hosts
            "$spotlite" serve --listen localhost:0 2>&1 & pid=$!
            sleep 3; kill $pid 2>/dev/null && echo "still running"; wait $pid; echo "status $?"
            printf '127.0.0.2 localhost\\n' > "$HOSTS"
            "$spotlite" serve --listen localhost:0 2>&1 & pid=$!
            sleep 3; kill -TERM $pid; wait $pid; echo "status $?"
            """
        let result = Namespace.run(script, cli: cli, environment: ["HOSTS": hosts])
        #expect(
            result.stdout.contains("--listen localhost:0 (192.0.2.1) is not a loopback address"), "\(result.stdout)")
        #expect(result.stdout.contains("status 2"), "\(result.stdout)")
        #expect(!result.stdout.contains("still running"), "\(result.stdout)")
        #expect(result.stdout.contains("listening on http://127.0.0.2:"), "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("status 0"), "\(result.stdout)")
    }
}
