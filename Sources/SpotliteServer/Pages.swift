import Foundation
import HTTPTypes
import Hummingbird
import Indexer
import SearchIndex
import TrackerStore

/// The search page at `/` (search as you type, hits with snippets, facets, keyboard navigation) and a page per
/// item, project and message (`/items/{uuid}`, `/projects/{uuid}`, `/messages/{uuid}`): plain HTML, one script
/// and one style sheet served by the binary (`/assets/…`), no build step.
///
/// Every text from the store is escaped for HTML by ``HTML/escaped(_:keepingLineBreaks:)`` (byte by byte, never by
/// `Character`: a grapheme cluster may hold a `<`) with its control characters shown as escapes, or set as text by
/// the page's script. The Content-Security-Policy allows this server's own script and style only: no inline script, no
/// inline handler, nothing from elsewhere, no framing.
/// The address of a row's page on `serve`: `/items/<uuid>`, `/projects/<uuid>` or `/messages/<uuid>` (what
/// `spotlite open --browser` opens, and what the pages link).
public func rowPagePath(_ kind: TrackerURI.Kind, _ id: String) -> String {
    switch kind {
    case .item: "/items/" + id
    case .project: "/projects/" + id
    case .message: "/messages/" + id
    }
}

struct Pages: Sendable {
    let backend: Backend
    let options: ServerOptions

    func register(on router: some RouterMethods<ServerContext>) {
        let searchPage = Self.searchPage(stores: options.stores.map(\.name), home: backend.storeID)
        router.get("/") { _, _ in Self.html(searchPage) }
        router.get("/assets/search.js") { _, _ in
            Self.asset(EmbeddedResources.searchScript, type: "text/javascript; charset=utf-8")
        }
        router.get("/assets/page.css") { _, _ in
            Self.asset(EmbeddedResources.pageStyle, type: "text/css; charset=utf-8")
        }
        router.get("/items/:uuid") { request, context in try await page(.item, request, context) }
        router.get("/projects/:uuid") { request, context in try await page(.project, request, context) }
        router.get("/messages/:uuid") { request, context in try await page(.message, request, context) }
    }

    /// A row's page; a row that is not there (deleted, a malformed id) is a page saying so, with the status.
    func page(_ kind: TrackerURI.Kind, _ request: Request, _ context: ServerContext) async throws -> Response {
        let back = Self.searchAddress(request.uri.queryParameters["back"].map(String.init))
        // A remote store's row has its page on its own host: the browser is sent there.
        if let storeID = request.uri.queryParameters["store"].map(String.init), storeID != backend.storeID,
            let pages = backend.allStores(options)?.remoteMember(storeID: storeID)?.store.pages,
            let id = (try? context.parameters.require("uuid")).flatMap(UUID.init(uuidString:))
        {
            return Response(
                status: .seeOther, headers: [.location: pages + rowPagePath(kind, id.uuidString.lowercased())])
        }
        do {
            return try await rowPage(kind, back: back, in: try source(request), context)
        } catch {
            let problem = Problem(error)
            var response = Self.html(Self.errorPage(problem, back: back))
            response.status = problem.status
            return response
        }
    }

    /// The search page's address a row page's "← Search" returns to: `/` and the search's own query string
    /// (`?q=…&f=…`, as the page's script passes it in `back`), else `/`.
    static func searchAddress(_ back: String?) -> String {
        guard let back, back.hasPrefix("?"), back.utf8.count <= 4_096 else { return "/" }
        return "/" + back
    }

    /// The store a row page reads: the server's own, or the one of `serve --stores` whose UUID `?store=` gives (the
    /// search page links a hit of another store so); nil for the server's own.
    func source(_ request: Request) throws -> StoreIndexer? {
        guard let storeID = request.uri.queryParameters["store"].map(String.init), storeID != backend.storeID else {
            return nil
        }
        guard let member = backend.allStores(options)?.member(storeID: storeID) else {
            throw Problem(
                .notFound,
                "no store with UUID '\(storeID)' is served here (`spotlite serve --stores` names those that are)",
                code: .foreignStore)
        }
        return member.indexer
    }

    func rowPage(_ kind: TrackerURI.Kind, back: String, in source: StoreIndexer?, _ context: ServerContext)
        async throws -> Response
    {
        let (uri, entity) = try await backend.row(kind, context, in: source)
        let store = (source ?? backend.reader).store
        // Links to the row's project, item and messages stay in its store.
        let storeID = source == nil ? "" : store.uuid
        switch entity {
        case .item(let item, let project):
            let messages = try await backend.run { try store.read { try $0.messages(onItems: [item.id]) } }
            return Self.html(
                Self.itemPage(item, project: project, uri: uri, messages: messages, back: back, store: storeID))
        case .message(let message, let project, let item):
            return Self.html(
                Self.messagePage(message, project: project, item: item, uri: uri, back: back, store: storeID))
        case .project(let project):
            var listing = SearchOptions()
            listing.snippets = false
            listing.request.limit = 200
            listing.request.sort = .modified
            let query = "kind:item project:\"\(uri)\""
            let outcome =
                if let source {
                    try await backend.run { [listing] in try source.search(query, options: listing) }
                } else {
                    try await backend.search(query, options: listing)
                }
            let messages = try await backend.run { try store.read { try $0.messages(onProjects: [project.id]) } }
            return Self.html(
                Self.projectPage(
                    project, uri: uri, items: outcome, messages: messages, back: back, store: storeID))
        }
    }

    /// The policy of every page: scripts and styles from this server only (no inline ones), requests to it only,
    /// no plugins, no base or form elsewhere, never in a frame.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    static func html(_ text: String) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: "text/html; charset=utf-8",
                .contentSecurityPolicy: contentSecurityPolicy,
                .xFrameOptions: "DENY",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static func asset(_ text: String, type: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: type, .cacheControl: "no-cache"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// A stored time (`2024-03-02T09:15:00Z`) as people read it, `2 March 2024, 09:15 UTC`, in a `<time>` that
    /// keeps the exact value (and shows it on hover); anything else, escaped as it is.
    static func time(_ stored: String) -> String {
        let fields = stored.split(whereSeparator: { "-T:Z".contains($0) }).map { Int($0) }
        let months = [
            "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
            "November", "December",
        ]
        guard stored.utf8.count == 20, fields.count == 6, let month = fields[1], (1...12).contains(month),
            let year = fields[0], let day = fields[2], let hour = fields[3], let minute = fields[4]
        else { return escaped(stored) }
        let minutes = minute < 10 ? "0\(minute)" : "\(minute)"
        let hours = hour < 10 ? "0\(hour)" : "\(hour)"
        return
            "<time datetime=\"\(escaped(stored))\" title=\"\(escaped(stored))\">\(day) \(months[month - 1]) \(year), "
            + "\(hours):\(minutes) UTC</time>"
    }

    /// `text` for HTML: see ``HTML/escaped(_:keepingLineBreaks:)``.
    static func escaped(_ text: String, keepingLineBreaks: Bool = false) -> String {
        HTML.escaped(text, keepingLineBreaks: keepingLineBreaks)
    }

    static let head = """
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <link rel="stylesheet" href="/assets/page.css">
        """

    /// The search page; `stores`, the names of `serve --stores` (the page then searches them and offers a store
    /// facet), `home` the server's own store's UUID (hits of other stores link their row pages with `?store=`).
    static func searchPage(stores: [String], home: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><title>Spotlite</title>
        \(head)
        <script src="/assets/search.js" defer></script></head>
        <body>
        <header><h1>Spotlite</h1></header>
        <main data-stores="\(escaped(stores.joined(separator: ",")))" data-home="\(escaped(home))">
        <input id="q" type="search" placeholder="Search items, projects and messages (/ to come back here)" autofocus
               autocomplete="off" aria-label="Search" aria-controls="hits">
        <div id="chips" aria-label="filters"></div>
        <div id="status" role="status" aria-live="polite"></div>
        <div id="suggestion"></div>
        <nav id="facets" aria-label="filter by"></nav>
        <ol id="hits" aria-label="hits"></ol>
        <button id="more" type="button" hidden>More hits</button>
        </main>
        </body></html>
        """
    }

    /// The start of a row's page, through its heading: `heading` is its title (escaped here); `back` the search
    /// page's address that "← Search" returns to.
    static func rowPageStart(_ heading: String, back: String = "/") -> String {
        """
        <!doctype html>
        <html lang="en"><head><title>\(escaped(heading)) — Spotlite</title>
        \(head)</head>
        <body>
        <nav aria-label="back to the search"><p><a id="back" href="\(escaped(back))">← Search</a></p></nav>
        <main>
        <h1 id="title">\(escaped(heading))</h1>
        """
    }

    /// The page of a row that cannot be shown: what went wrong, as the API's problem says it.
    static func errorPage(_ problem: Problem, back: String) -> String {
        """
        \(rowPageStart(problem.status.code == 404 ? "Not found" : problem.status.reasonPhrase, back: back))
        <p id="problem">\(escaped(problem.detail))</p>
        </main></body></html>
        """
    }

    /// The address of a row's page, escaped for an attribute; `store` is the `?store=` of a row of another store
    /// (`serve --stores`), empty for the server's own.
    static func path(_ kind: TrackerURI.Kind, _ id: String, _ store: String) -> String {
        escaped(rowPagePath(kind, id) + (store.isEmpty ? "" : "?store=\(store)"))
    }

    /// The messages on an item or a project, oldest first, each linking to its own page.
    static func messageList(_ messages: [Message], store: String = "") -> String {
        guard !messages.isEmpty else { return "" }
        var rows = ""
        for message in messages {
            let author = message.author.isEmpty ? "someone" : message.author
            rows +=
                "<li><a href=\"\(path(.message, message.id, store))\">\(escaped(author))</a>"
                + " <span class=\"meta\">\(time(message.createdAt))</span><div class=\"detail\">"
                + "\(escaped(message.text, keepingLineBreaks: true))</div></li>\n"
        }
        return "<h2>Messages</h2>\n<ul id=\"messages\">\n\(rows)</ul>"
    }

    static func messagePage(
        _ message: Message, project: Project, item: Item?, uri: TrackerURI, back: String = "/", store: String = ""
    ) -> String {
        let author = message.author.isEmpty ? "someone" : message.author
        let on = item.map { "<a id=\"item\" href=\"\(path(.item, $0.id, store))\">\(escaped($0.title))</a> in " } ?? ""
        return """
            \(rowPageStart("Message from " + author, back: back))
            <dl>
            <dt>on</dt><dd>\(on)<a id="project" href="\(path(.project, project.id, store))">\(escaped(project.title))</a></dd>
            <dt>created</dt><dd>\(time(message.createdAt))</dd>
            <dt>modified</dt><dd>\(time(message.modifiedAt))</dd>
            <dt>uri</dt><dd><code id="uri">\(escaped(uri.description))</code></dd>
            </dl>
            <div class="detail" id="detail">\(escaped(message.text, keepingLineBreaks: true))</div>
            </main></body></html>
            """
    }

    static func itemPage(
        _ item: Item, project: Project, uri: TrackerURI, messages: [Message] = [], back: String = "/",
        store: String = ""
    ) -> String {
        let projectURI = TrackerURI(storeID: uri.storeID, kind: .project, entityID: project.id)
        let priority = [1: "low", 2: "medium", 3: "high"][item.priority] ?? "?"
        return """
            \(rowPageStart(item.title, back: back))
            <dl>
            <dt>project</dt><dd><a id="project" href="\(path(.project, project.id, store))">\(escaped(project.title))</a></dd>
            <dt>priority</dt><dd>\(item.priority) (\(priority))</dd>
            <dt>status</dt><dd>\(item.isCompleted ? "completed" : "open")</dd>
            <dt>created</dt><dd>\(time(item.createdAt))</dd>
            <dt>modified</dt><dd>\(time(item.modifiedAt))</dd>
            \(trackingRows(item.tracking, storeID: uri.storeID, store: store))<dt>uri</dt><dd><code id="uri">\(escaped(uri.description))</code></dd>
            <dt>project uri</dt><dd><code>\(escaped(projectURI.description))</code></dd>
            </dl>
            <div class="detail" id="detail">\(escaped(item.detail, keepingLineBreaks: true))</div>
            \(messageList(messages, store: store))
            </main></body></html>
            """
    }

    /// The item's tracker fields that are set, as rows of its `<dl>`: a link to an item of this store goes to its
    /// page, the source URL (http or https only, as the store keeps it) to the tracker.
    static func trackingRows(_ t: ItemTracking, storeID: String, store: String) -> String {
        var rows = ""
        func row(_ name: String, _ html: String) { rows += "<dt>\(name)</dt><dd>\(html)</dd>\n" }
        if let closed = t.closedAt { row("closed", time(closed)) }
        if !t.resolution.isEmpty { row("resolution", escaped(t.resolution)) }
        if !t.author.isEmpty { row("author", escaped(t.author)) }
        if !t.assignees.isEmpty { row("assignees", t.assignees.map { escaped($0) }.joined(separator: ", ")) }
        if !t.tags.isEmpty {
            row("tags", t.tags.map { "<span class=\"tag\">\(escaped($0))</span>" }.joined(separator: " "))
        }
        for link in t.links {
            let target = link.target(in: storeID)
            let html =
                link.storeID == nil
                ? "<a class=\"link\" href=\"\(path(.item, link.itemID, store))\">\(escaped(target.description))</a>"
                : "<code>\(escaped(target.description))</code>"
            row(escaped(link.kind.rawValue), html)
        }
        if !t.sourceKey.isEmpty || !t.sourceURL.isEmpty {
            let key = escaped(t.sourceKey.isEmpty ? t.sourceURL : t.sourceKey)
            row(
                "source",
                t.sourceURL.isEmpty
                    ? key : "<a id=\"source\" rel=\"noreferrer noopener\" href=\"\(escaped(t.sourceURL))\">\(key)</a>")
        }
        return rows
    }

    static func projectPage(
        _ project: Project, uri: TrackerURI, items: SearchOutcome, messages: [Message] = [], back: String = "/",
        store: String = ""
    ) -> String {
        var rows = ""
        for hit in items.hits {
            guard case .item(let item, _) = hit.entity else { continue }
            rows +=
                "<li><a href=\"\(path(.item, item.id, store))\">\(escaped(item.title))</a>"
                + " <span class=\"meta\">\(item.isCompleted ? "done" : "open") · P\(item.priority)</span></li>\n"
        }
        return """
            \(rowPageStart(project.title, back: back))
            <dl>
            <dt>status</dt><dd>\(project.isClosed ? "closed" : "open")</dd>
            <dt>items</dt><dd>\(items.total)</dd>
            <dt>uri</dt><dd><code id="uri">\(escaped(uri.description))</code></dd>
            </dl>
            <div class="detail">\(escaped(project.detail, keepingLineBreaks: true))</div>
            <h2>Items, latest changed first</h2>
            <ul id="items">
            \(rows)</ul>
            \(messageList(messages, store: store))
            </main></body></html>
            """
    }
}
