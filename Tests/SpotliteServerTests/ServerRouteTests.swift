import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Indexer
import Logging
import NIOCore
import SpotliteJSON
import Testing
import TestSupport
import TrackerStore

@testable import SpotliteServer

/// The samples' store and index, built once per test process and copied for each test that needs one: a test gets
/// a store of its own in milliseconds, and a fixture that cannot be built fails the tests that use it, not the run.
enum SampleFixture {
    /// The directory holding `tracker.sqlite` and `index/`, or why it could not be made.
    private static let template: Result<String, any Error> = Result {
        let directory = NSTemporaryDirectory() + "spotlite-fixture-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let store = try TrackerStore.create(at: directory + "/tracker.sqlite")
        _ = try store.importJSONLines(try Data(contentsOf: URL(fileURLWithPath: Repository.portfolio)))
        _ = try StoreIndexer(store: store, indexPath: directory + "/index").catchUp()
        return directory
    }

    /// A copy of the samples' store and index in `directory`: the paths of the store and of the index.
    static func copy(into directory: TemporaryDirectory) throws -> (store: String, index: String) {
        let source = try template.get()
        for name in try FileManager.default.contentsOfDirectory(atPath: source) {
            try FileManager.default.copyItem(atPath: source + "/" + name, toPath: directory.file(name))
        }
        return (directory.file("tracker.sqlite"), directory.file("index"))
    }
}

/// The server's routes in-process, through Hummingbird's testing client: the API's answers, its problem documents,
/// and the checks every request passes (``RequestGuard``), with no socket and no process. The same server, run as
/// the real binary and spoken to with exact bytes, is `ServeTests` and `ServeSecurityTests`.
@Suite struct ServerRouteTests {
    let directory = TemporaryDirectory("server")

    /// A server on a fresh copy of the samples, with `options` (changed by `configure`), and its application; in
    /// process (`.router`), or listening on a loopback port (`.live`).
    func withServer(
        testing: TestingSetup = .router, _ configure: (inout ServerOptions) -> Void = { _ in },
        _ test: @escaping @Sendable (any TestClientProtocol, SpotliteServer) async throws -> Void
    ) async throws {
        let (store, index) = try SampleFixture.copy(into: directory)
        var options = ServerOptions()
        options.port = 0
        // The suite runs beside blocking tests on few cores, which can hold a search off the CPU for seconds: the
        // time limit is not what these tests check.
        options.searchTimeLimit = 120
        configure(&options)
        var logger = Logger(label: "test")
        logger.logLevel = .error
        let server = try SpotliteServer(storePath: store, indexPath: index, options: options, logger: logger)
        let parts = try server.makeParts()
        let application = server.makeApplication(
            parts, services: [parts.live, StreamCloser(hub: parts.hub)], onListening: { _ in })
        // On threads of its own (``ServerThreads``), as a server has the concurrency pool to itself in production.
        try await withTaskExecutorPreference(ServerThreads.shared) {
            try await application.test(testing) { client in try await test(client, server) }
        }
    }

    static func json(_ buffer: ByteBuffer) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) as? [String: Any])
    }

    static let jsonType: HTTPFields = [.contentType: "application/json"]

    @Test func aSearchAnswersWhatTheCommandPrints() async throws {
        try await withServer { client, server in
            let response = try await client.execute(uri: "/v1/search?q=leaking+tap&facets=project,status", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json")
            var options = SearchOptions()
            options.request.facets = [.project, .status]
            let printed = SearchJSON.outcome(try server.backend.reader.search("leaking tap", options: options))
            var answered = try Self.json(response.body)
            var expected = try #require(
                try JSONSerialization.jsonObject(with: Data(printed.text.utf8)) as? [String: Any])
            answered["changes_behind"] = nil
            expected["changes_behind"] = nil
            #expect(NSDictionary(dictionary: answered) == NSDictionary(dictionary: expected))
            #expect(response.headers[.xContentTypeOptions] == "nosniff")
        }
    }

    /// `/metrics` counts every request by route and status, and times it by route.
    @Test func metricsCountEachRouteAndStatus() async throws {
        try await withServer { client, _ in
            for query in ["q=tap", "q=leaking", "q=%G1", "q=tap"] {
                _ = try await client.execute(uri: "/v1/search?" + query, method: .get)
            }
            _ = try await client.execute(uri: "/healthz", method: .get)
            let text = try await client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
            for line in [
                #"spotlite_http_requests_total{route="/v1/search",status="200"} 3"#,
                #"spotlite_http_requests_total{route="/v1/search",status="400"} 1"#,
                #"spotlite_http_requests_total{route="/healthz",status="200"} 1"#,
                #"spotlite_http_request_duration_seconds_count{route="/v1/search"} 4"#,
            ] {
                #expect(text.split(separator: "\n").contains { $0 == line }, "\(line) in \(text)")
            }
        }
    }

    @Test func errorsAreProblemDocumentsWithTheCLIsCodes() async throws {
        try await withServer { client, _ in
            for (uri, status, code) in [
                ("/v1/search?q=tap%20AND", 400, "usage"), ("/v1/search", 400, "usage"),
                ("/v1/search?q=tap&limit=0", 400, "usage"), ("/v1/search?q=tap&offset=1000001", 400, "usage"),
                ("/v1/items/00000000-0000-4000-8000-000000000000", 404, "not-found"),
                ("/v1/items/not-a-uuid", 400, "usage"), ("/v1/subscriptions/nope/events", 404, "not-found"),
            ] {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status.code == status, "\(uri)")
                #expect(response.headers[.contentType] == "application/problem+json", "\(uri)")
                #expect(try Self.json(response.body)["code"] as? String == code, "\(uri)")
            }
            let unparsable = try await client.execute(
                uri: "/v1/resolve", method: .post, headers: Self.jsonType, body: ByteBuffer(string: "{"))
            #expect(unparsable.status == .badRequest)
            let many = try JSONSerialization.data(withJSONObject: ["uris": Array(repeating: "x", count: 1_001)])
            let tooMany = try await client.execute(
                uri: "/v1/resolve", method: .post, headers: Self.jsonType, body: ByteBuffer(bytes: many))
            #expect(tooMany.status == .contentTooLarge)
        }
    }

    /// Every error carries the CLI's code, a route's own included; a path served with other methods is a 405 that
    /// names them; HEAD is answered wherever GET is.
    @Test func routesAndMethodsAreAnsweredAsHTTPSays() async throws {
        try await withServer { client, _ in
            let unknown = try await client.execute(uri: "/v2/nothing", method: .get)
            #expect(unknown.status == .notFound)
            let problem = try Self.json(unknown.body)
            #expect(problem["code"] as? String == "not-found" && problem["exit_code"] as? Int == 3)
            #expect((problem["detail"] as? String)?.hasPrefix("no such path /v2/nothing") == true)
            for (uri, method, allow) in [
                ("/v1/status", HTTPRequest.Method.post, "GET, HEAD"), ("/v1/resolve", .get, "POST"),
                ("/v1/subscriptions/abc", .post, "GET, HEAD, DELETE"), ("/v1/items/x", .delete, "GET, HEAD"),
            ] {
                let response = try await client.execute(
                    uri: uri, method: method, headers: Self.jsonType, body: ByteBuffer(string: "{}"))
                #expect(response.status == .methodNotAllowed, "\(method) \(uri)")
                #expect(response.headers[.allow] == allow, "\(method) \(uri)")
                #expect(try Self.json(response.body)["code"] as? String == "usage", "\(method) \(uri)")
            }
            for uri in ["/v1/status", "/", "/healthz"] {
                let get = try await client.execute(uri: uri, method: .get)
                let head = try await client.execute(uri: uri, method: .head)
                #expect(head.status == .ok, "\(uri)")
                #expect(head.body.readableBytes == 0, "\(uri)")
                #expect(head.headers[.contentType] == get.headers[.contentType], "\(uri)")
            }
        }
    }

    /// A bad search parameter is refused in the words `spotlite search` uses for the same option (less its `--`):
    /// both check a request through SearchParameters.
    @Test func badSearchParametersAreRefusedInTheCommandsWords() async throws {
        try await withServer { client, _ in
            for (query, detail) in [
                (
                    "q=tap&facets=project,bogus",
                    "facets takes project, priority, status, store, tag, assignee and resolution, not 'bogus'"
                ),
                ("q=tap&sort=newest", "sort takes relevance, created, modified, priority, title, not 'newest'"),
                ("q=tap&reverse=true", "reverse needs sort created, modified, priority or title"),
                ("q=tap&limit=ten", "limit must be a whole number from 1 to 1000"),
                ("q=tap&offset=-1", "offset must be a whole number from 0 to 1000000"),
                ("q=%20", "give a query: /v1/search?q=leaking+tap"),
            ] {
                let response = try await client.execute(uri: "/v1/search?" + query, method: .get)
                #expect(response.status == .badRequest, "\(query)")
                #expect(try Self.json(response.body)["detail"] as? String == detail, "\(query)")
            }
        }
    }

    /// What a browser sends across sites unasked is refused before it reaches a route, and makes nothing.
    @Test func crossSiteWritesAreRefused() async throws {
        try await withServer { client, server in
            let body = ByteBuffer(string: #"{"query":"tap"}"#)
            for headers: HTTPFields in [
                [.contentType: "text/plain"], [.contentType: "application/x-www-form-urlencoded"],
                [.contentType: "application/json", .origin: "https://evil.example"],
                [.contentType: "application/json", RequestGuard.fetchSiteHeader: "cross-site"],
            ] {
                let response = try await client.execute(
                    uri: "/v1/subscriptions", method: .post, headers: headers, body: body)
                #expect([403, 415].contains(response.status.code), "\(headers)")
            }
            #expect(try server.backend.writer.store.read { try $0.subscriptions() }.isEmpty)
            let made = try await client.execute(
                uri: "/v1/subscriptions", method: .post,
                headers: [.contentType: "application/json", .origin: "http://localhost"], body: body)
            #expect(made.status == .created)
        }
    }

    /// Subscriptions are capped in number and in rows; bodies are read strictly.
    @Test func subscriptionsAreCappedAndBodiesReadStrictly() async throws {
        try await withServer({ options in
            options.subscriptionLimits.maximumSubscriptions = 2
            options.subscriptionLimits.maximumRows = 20
        }) { (client, _) async throws in
            func post(_ text: String) async throws -> Int {
                try await client.execute(
                    uri: "/v1/subscriptions", method: .post, headers: Self.jsonType, body: ByteBuffer(string: text)
                ).status.code
            }
            #expect(try await post(#"{"query":"kind:item"}"#) == 400)  // 40 rows
            #expect(try await post(#"{"query":"tap"}"#) == 201)
            #expect(try await post(#"{"query":"  TAP "}"#) == 200)
            #expect(try await post(#"{"query":"paint"}"#) == 201)
            #expect(try await post(#"{"query":"boiler"}"#) == 409)
            for body in [
                #"{"query":"tap\u0000x"}"#, #"{"query":"tap","spotlight":"yes"}"#, #"{"query":"tap","extra":1}"#,
                #"{"query":"tap","query":"x"}"#, #"["tap"]"#,
            ] {
                #expect(try await post(body) == 400, "\(body)")
            }
        }
    }

    /// Behind a token: the page's shell is public, the data is not; a session cookie made from the token opens it
    /// to a browser, and its state-changing requests need the session's CSRF token.
    @Test func aBrowserSessionOpensTheDataBehindAToken() async throws {
        let token = "0123456789abcdef0123456789abcdef"
        try await withServer({ $0.token = token }) { client, _ in
            #expect(try await client.execute(uri: "/", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/assets/search.js", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/v1/status", method: .get).status == .unauthorized)
            let session = try await client.execute(
                uri: "/v1/session", method: .post, headers: [.authorization: "bearer \(token)"])
            #expect(session.status == .created)
            let cookie = try #require(session.headers[.setCookie])
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
            let pair = String(cookie.split(separator: ";")[0])
            let csrf = try #require(try Self.json(session.body)["csrf"] as? String)
            #expect(try await client.execute(uri: "/v1/status", method: .get, headers: [.cookie: pair]).status == .ok)
            let body = ByteBuffer(string: #"{"query":"tap"}"#)
            var headers: HTTPFields = [.contentType: "application/json", .cookie: pair]
            #expect(
                try await client.execute(uri: "/v1/subscriptions", method: .post, headers: headers, body: body).status
                    == .forbidden)
            headers[RequestGuard.csrfHeader] = csrf
            #expect(
                try await client.execute(uri: "/v1/subscriptions", method: .post, headers: headers, body: body).status
                    == .created)
        }
    }

    /// The pages allow this server's script and style only.
    @Test func pagesCarryAStrictPolicy() async throws {
        try await withServer { client, _ in
            let page = try await client.execute(uri: "/items/2bfe362f-b0e0-581f-88d9-e093789200ec", method: .get)
            #expect(page.status == .ok)
            let policy = try #require(page.headers[.contentSecurityPolicy])
            #expect(!policy.contains("unsafe-inline") && policy.contains("script-src 'self'"))
            let html = String(buffer: page.body)
            #expect(html.contains("<h1 id=\"title\">Fix the leaking tap</h1>"))
            // Times as people read them, the stored value kept (and shown on hover).
            #expect(
                html.contains(
                    "<time datetime=\"2024-03-02T09:15:00Z\" title=\"2024-03-02T09:15:00Z\">2 March 2024, 09:15 UTC</time>"
                ))
            #expect(!html.contains("<script>") && !html.contains("<style>"))
        }
    }

    /// A row page returns to the search it was opened from (and to nothing but this server's search page); a row
    /// that is not there is a page saying so, with the status, not a problem document.
    @Test func rowPagesReturnToTheirSearchAndAMissingRowIsAPage() async throws {
        try await withServer { client, _ in
            let item = "/items/2bfe362f-b0e0-581f-88d9-e093789200ec"
            for (back, href) in [
                ("%3Fq%3Dleaking%2Btap%26f%3Dis%253Aopen", "/?q=leaking+tap&amp;f=is%3Aopen"),
                ("%2F%2Fevil.example", "/"), ("", "/"),
            ] {
                let page = try await client.execute(uri: item + "?back=" + back, method: .get)
                #expect(String(buffer: page.body).contains("<a id=\"back\" href=\"\(href)\">"), "\(back)")
            }
            let missing = try await client.execute(
                uri: "/items/00000000-0000-4000-8000-000000000000?back=%3Fq%3Dtap", method: .get)
            #expect(missing.status == .notFound)
            #expect(missing.headers[.contentType] == "text/html; charset=utf-8")
            let html = String(buffer: missing.body)
            #expect(html.contains("<h1 id=\"title\">Not found</h1>") && html.contains("is not in this store"))
            #expect(html.contains("<a id=\"back\" href=\"/?q=tap\">"))
            let malformed = try await client.execute(uri: "/projects/not-a-uuid", method: .get)
            #expect(malformed.status == .badRequest && malformed.headers[.contentType] == "text/html; charset=utf-8")
            // A row page of another store (`?store=`, as the page links hits of `serve --stores`) that this server
            // does not serve is a page saying so; `?store=` naming the server's own store is its own row.
            let elsewhere = try await client.execute(
                uri: item + "?store=11111111-2222-4333-8444-555555555555", method: .get)
            #expect(elsewhere.status == .notFound)
            #expect(String(buffer: elsewhere.body).contains("no store with UUID"))
            let status = try await client.execute(uri: "/v1/status", method: .get)
            let own = try #require(try Self.json(status.body)["store_uuid"] as? String)
            #expect(try await client.execute(uri: item + "?store=" + own, method: .get).status == .ok)
        }
    }

    /// An item's tracker fields on its page, escaped scalar by scalar, with its source a link only for http(s), and
    /// in the API's item, every field present.
    @Test func anItemsTrackerFieldsAreOnItsPageEscapedAndInTheAPI() async throws {
        try await withServer { [directory] client, _ in
            let tap = "2bfe362f-b0e0-581f-88d9-e093789200ec"
            let hose = "3ef7220a-0c23-5643-9a82-be7b3987372c"
            let store = try TrackerStore.open(at: directory.file("tracker.sqlite"))
            try store.updateItem(
                id: tap,
                ItemChanges(tracking: { tracking in
                    tracking.tags = ["<b>plumbing</b>", "a\u{301}\"quote"]
                    tracking.author = "Eve <script>"
                    tracking.sourceURL = "https://tracker.example.com/HOME-1?a=1&b=\"2\""
                    tracking.sourceKey = "HOME-1"
                    tracking.links = [ItemLink(kind: .relatesTo, itemID: hose)]
                }))
            let page = String(buffer: try await client.execute(uri: "/items/" + tap, method: .get).body)
            #expect(page.contains("<span class=\"tag\">&lt;b&gt;plumbing&lt;/b&gt;</span>"), "\(page)")
            #expect(page.contains("a\u{301}&quot;quote") && page.contains("Eve &lt;script&gt;"))
            #expect(!page.contains("<script>") && !page.contains("<b>plumbing"))
            #expect(
                page.contains(
                    "<a id=\"source\" rel=\"noreferrer noopener\" href=\"https://tracker.example.com/HOME-1?a=1&amp;b=&quot;2&quot;\">HOME-1</a>"
                ), "\(page)")
            #expect(page.contains("<dt>relates-to</dt><dd><a class=\"link\" href=\"/items/\(hose)"))
            let api = try Self.json(try await client.execute(uri: "/v1/items/" + tap, method: .get).body)
            #expect(
                api["tags"] as? [String]
                    == ["<b>plumbing</b>", "a\u{301}\"quote"].sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
            #expect(api["author"] as? String == "Eve <script>" && api["key"] as? String == "HOME-1")
            #expect(api["assignees"] as? [String] == [] && api["closed_at"] is NSNull)
            let plain = try Self.json(try await client.execute(uri: "/v1/items/" + hose, method: .get).body)
            #expect(plain["tags"] as? [String] == [] && plain["url"] as? String == "")
        }
    }
}
