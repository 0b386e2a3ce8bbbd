import Foundation
import HTTPTypes
import Hummingbird
import Indexer
import SearchIndex
import SpotliteJSON
import TrackerStore

/// The JSON API, `/v1/…`: what `spotlite search|resolve|status --format json` print, and subscriptions.
struct APIRoutes: Sendable {
    let backend: Backend
    let options: ServerOptions
    let streams: EventStreams
    let sessions: BrowserSessions

    func register(on router: some RouterMethods<ServerContext>) {
        router.get("/healthz") { _, _ in Self.json(.object([("status", .string("ok"))])) }
        router.get("/openapi.json") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: EmbeddedResources.openAPI)))
        }
        router.get("/v1/search") { request, _ in try await search(request) }
        router.get("/v1/items/:uuid") { _, context in try await entity(.item, context) }
        router.get("/v1/projects/:uuid") { _, context in try await entity(.project, context) }
        router.get("/v1/messages/:uuid") { _, context in try await entity(.message, context) }
        router.post("/v1/resolve") { request, _ in try await resolve(request) }
        router.get("/v1/status") { _, _ in
            // A server of remote stores (`--stores`) says how far behind their primaries its replicas are.
            let (status, replicas) = try await backend.run {
                (try backend.reader.status(), backend.replicaStatus(options))
            }
            return Self.json(
                StatusJSON.status(
                    status, replicas: replicas.map { ($0.name, $0.replica.directory, $0.status) }))
        }
        router.get("/v1/subscriptions") { _, _ in
            let storeID = backend.storeID
            let all = try await backend.run { try backend.writer.store.read { try $0.subscriptions() } }
            return Self.json(SubscriptionJSON.list(all, storeID: storeID))
        }
        router.post("/v1/subscriptions") { request, _ in try await subscribe(request) }
        router.get("/v1/subscriptions/:id") { _, context in
            let id = try context.parameters.require("id")
            guard
                let subscription = try await backend.run({
                    try backend.writer.store.read { try $0.subscription(id: id) }
                })
            else { throw Problem(.notFound, "no subscription \(id); list them at /v1/subscriptions", code: .notFound) }
            return Self.json(SubscriptionJSON.subscription(subscription, storeID: backend.storeID))
        }
        router.delete("/v1/subscriptions/:id") { _, context in
            let id = try context.parameters.require("id")
            guard try await backend.run({ try backend.writer.store.deleteSubscription(id: id) }) else {
                throw Problem(.notFound, "no subscription \(id); list them at /v1/subscriptions", code: .notFound)
            }
            return Response(status: .noContent)
        }
        router.get("/v1/subscriptions/:id/events") { request, context in
            try await streams.response(for: try context.parameters.require("id"), request: request, context: context)
        }
        router.post("/v1/session") { request, _ in try openSession(request) }
        router.get("/v1/session") { request, _ in try session(request) }
        router.delete("/v1/session") { request, _ in
            let cookies = request.headers[.cookie]
            if let id = BrowserSessions.sessionID(inCookies: cookies, authority: request.head.authority) {
                sessions.close(id)
            }
            var response = Response(status: .noContent)
            response.headers[.setCookie] = Self.cookie(authority: request.head.authority, value: "", maxAge: 0)
            return response
        }
    }

    // MARK: - Search

    func search(_ request: Request) async throws -> Response {
        let parameters = try FormQuery(request.uri.query)
        let search = try searchOptions(parameters)
        let started = DispatchTime.now().uptimeNanoseconds
        let outcome: SearchOutcome
        if let names = parameters["stores"] {
            let set = try storeSet(names)
            outcome = try await backend.run { try set.search(search.text, options: search.options) }
        } else {
            outcome = try await backend.search(search.text, options: search.options)
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        // Xapian stops matching at the limit and returns what it examined: past it, the page may miss better hits.
        if seconds >= options.searchTimeLimit {
            throw Problem(
                .serviceUnavailable,
                "the search took \(String(format: "%.1f", seconds)) s, more than the \(options.searchTimeLimit) s allowed; "
                    + "narrow the query (fewer wildcards, more words)", code: .index)
        }
        return Self.json(SearchJSON.outcome(outcome))
    }

    /// The stores `stores=all|NAME,NAME` names among those the server was started with (`serve --stores`), searched
    /// together; one ``StoreSet`` per selection, kept (its stores and readers stay open).
    func storeSet(_ selection: String) throws -> StoreSet {
        guard !options.stores.isEmpty else {
            throw Problem(
                .badRequest,
                "this server searches one store; start it with `spotlite serve --stores …` to search several",
                code: .usage)
        }
        let known = options.stores.map(\.name)
        let names = selection == "all" ? known : selection.split(separator: ",").map(String.init)
        if names.isEmpty {
            throw Problem(
                .badRequest, "stores= takes all or store names separated by commas (\(known.joined(separator: ", ")))",
                code: .usage)
        }
        for name in names where !known.contains(name) {
            throw Problem(
                .badRequest, "no store named '\(name)' here; this server searches \(known.joined(separator: ", "))",
                code: .usage)
        }
        let members = options.stores.filter { names.contains($0.name) }
        return backend.storeSet(key: members.map(\.name).joined(separator: ",")) { StoreSet(members: members) }
    }

    /// The query and options of `/v1/search?q=…&limit&offset&sort&reverse&facets&partial&correct&spotlight`, checked
    /// as `spotlite search` checks its options (``SearchParameters``).
    func searchOptions(_ parameters: FormQuery) throws -> (text: String, options: SearchOptions) {
        var search = SearchParameters(.field, query: parameters["q"] ?? "")
        search.limit = parameters["limit"]
        search.offset = parameters["offset"]
        search.sort = parameters["sort"]
        search.reverse = try flag(parameters, "reverse")
        search.facets = parameters["facets"]
        search.partial = try flag(parameters, "partial")
        search.correct = try flag(parameters, "correct")
        search.spotlight = try flag(parameters, "spotlight")
        var options: SearchOptions
        do {
            options = try search.options(maximumLimit: self.options.maximumLimit)
        } catch {
            throw Problem(.badRequest, error.message, code: .usage)
        }
        options.request.timeLimit = self.options.searchTimeLimit
        return (search.query, options)
    }

    func flag(_ parameters: FormQuery, _ name: String) throws -> Bool {
        switch parameters[name] {
        case nil, "false", "0": return false
        case "", "true", "1": return true
        case let other?: throw Problem(.badRequest, "\(name) is true or false, not '\(other)'", code: .usage)
        }
    }

    // MARK: - Rows

    func entity(_ kind: TrackerURI.Kind, _ context: ServerContext) async throws -> Response {
        let (uri, entity) = try await backend.row(kind, context)
        return Self.json(EntityJSON.json(entity, uri: uri))
    }

    /// `POST /v1/resolve` with `{"uris": ["tracker://…", …]}`: each URI's row, or what is wrong with it (as
    /// `spotlite resolve` reports on stderr), in order.
    func resolve(_ request: Request) async throws -> Response {
        let body = try await jsonObject(request, shape: "{\"uris\": [\"tracker://…\", …]}", fields: ["uris"])
        guard case .array(let uris)? = body["uris"] else {
            throw Problem(.badRequest, "send {\"uris\": [\"tracker://…\", …]} as JSON", code: .usage)
        }
        if uris.count > options.maximumResolveURIs {
            throw Problem(
                .contentTooLarge, "\(uris.count) URIs; one resolve takes at most \(options.maximumResolveURIs)",
                code: .usage)
        }
        let texts = try uris.map { value -> String in
            guard case .string(let text) = value else {
                throw Problem(.badRequest, "every URI is a string: tracker://<store>/item/<uuid>", code: .usage)
            }
            return text
        }
        let store = backend.reader.store
        // A server started with --stores resolves URIs of those stores too, each in the store its UUID names.
        let others = backend.allStores(options)
        let results = try await backend.run { () -> [JSON] in
            // The server's own rows in one read (a remote store's page of hits is one request: one read here).
            let parsed = texts.map { try? TrackerURI(parsing: $0) }
            func ids(_ kind: TrackerURI.Kind) -> [String] {
                parsed.compactMap { $0?.storeID == store.uuid && $0?.kind == kind ? $0?.entityID : nil }
            }
            let own = try? store.entities(items: ids(.item), projects: ids(.project), messages: ids(.message))
            return zip(texts, parsed).map { text, parsed in
                do {
                    let uri = try parsed ?? TrackerURI(parsing: text)
                    if uri.storeID != store.uuid, let found = try others?.row(for: uri) {
                        return EntityJSON.json(found.copy.entity, uri: uri)
                    }
                    if uri.storeID == store.uuid, let own {
                        guard let entity = own[uri.kind]?[uri.entityID] else { throw TrackerStore.notFound(uri) }
                        return EntityJSON.json(entity, uri: uri)
                    }
                    return EntityJSON.json(try store.entity(for: uri), uri: uri)
                } catch {
                    let (code, message) = ErrorCode.classify(error)
                    return ProblemJSON.failedURI(text, code, detail: message)
                }
            }
        }
        return Self.json(.object([("results", .array(results))]))
    }

    // MARK: - Subscriptions

    /// `POST /v1/subscriptions` with `{"query": "…", "spotlight": false}`: 201 with a new subscription, 200 with
    /// the one the same query already has.
    func subscribe(_ request: Request) async throws -> Response {
        let shape = "{\"query\": \"leaking tap\", \"spotlight\": false}"
        let body = try await jsonObject(request, shape: shape, fields: ["query", "spotlight"])
        guard case .string(let query)? = body["query"], !query.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw Problem(.badRequest, "send \(shape) as JSON: query is a non-empty string", code: .usage)
        }
        var spotlight = false
        switch body["spotlight"] {
        case nil: break
        case .bool(let flag)?: spotlight = flag
        case let other?:
            throw Problem(
                .badRequest, "spotlight is true or false (a JSON boolean), not a \(Self.typeName(other))", code: .usage)
        }
        let syntax: Subscription.Syntax = spotlight ? .spotlight : .spotlite
        let limits = options.subscriptionLimits
        let (subscription, created): (Subscription, Bool)
        do {
            (subscription, created) = try await backend.run {
                try backend.writer.subscribe(query, syntax: syntax, limits: limits)
            }
        } catch let error as IndexerError where error.storeError?.code == .limitReached {
            throw Problem(.conflict, error.message, code: .usage)
        }
        var response = Self.json(
            SubscriptionJSON.subscription(subscription, storeID: backend.storeID), status: created ? .created : .ok)
        response.headers[.location] = "/v1/subscriptions/\(subscription.id)"
        return response
    }

    // MARK: - Browser sessions

    /// `POST /v1/session` with the bearer token: a session cookie for the browser (``BrowserSessions``), and the
    /// CSRF token its state-changing requests carry. 404 when the server has no token (nothing to exchange).
    func openSession(_ request: Request) throws -> Response {
        guard let token = options.token else {
            throw Problem(.notFound, "this server needs no token, so it makes no sessions", code: .notFound)
        }
        guard ServerOptions.authorizes(request.headers[.authorization], token: token) else {
            var problem = Problem(.unauthorized, "a session is made with the token: send Authorization: Bearer <token>")
            problem.headers[.wwwAuthenticate] = "Bearer"
            throw problem
        }
        let made = sessions.open()
        var response = Self.json(.object([("csrf", .string(made.csrf))]), status: .created)
        response.headers[.setCookie] = Self.cookie(
            authority: request.head.authority, value: made.id, maxAge: Int(options.sessionIdleSeconds))
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// `GET /v1/session`: the CSRF token of the browser's session (`{"csrf": null}` when no token is needed).
    func session(_ request: Request) throws -> Response {
        guard options.token != nil else { return Self.json(.object([("csrf", .null)])) }
        let cookies = request.headers[.cookie]
        guard let id = BrowserSessions.sessionID(inCookies: cookies, authority: request.head.authority),
            let csrf = sessions.csrf(of: id)
        else {
            throw Problem(.unauthorized, "no session: open the page as /#token=<token> to make one")
        }
        var response = Self.json(.object([("csrf", .string(csrf))]))
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// The session cookie: sent back only to this server's own pages and requests (`SameSite=Strict`), never
    /// readable by a script (`HttpOnly`).
    static func cookie(authority: String?, value: String, maxAge: Int) -> String {
        BrowserSessions.cookieName(authority: authority)
            + "=\(value); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Strict"
    }

    // MARK: - Helpers

    /// The request's body as a JSON object holding no key but `fields`: the body was read whole (and checked to
    /// be `application/json`) by the ``RequestGuard``.
    func jsonObject(_ request: Request, shape: String, fields: Set<String>) async throws -> [String: JSONValue] {
        guard RequestGuard.hasBody(request) else {
            throw Problem(.badRequest, "send \(shape) as JSON, with Content-Type: application/json", code: .usage)
        }
        let buffer = try await request.body.collect(upTo: options.maximumBodyBytes)
        let value: JSONValue
        do {
            value = try StrictJSON.parse(Array(buffer.readableBytesView))
        } catch {
            throw Problem(.badRequest, "the body is not JSON (\(error.text)); send \(shape)", code: .usage)
        }
        guard case .object(let object) = value else {
            throw Problem(.badRequest, "send \(shape) as JSON: an object, not a \(Self.typeName(value))", code: .usage)
        }
        if let unknown = object.keys.sorted().first(where: { !fields.contains($0) }) {
            throw Problem(
                .badRequest, "unknown field \(JSONLines.quote(String(unknown.prefix(60)))); send \(shape)",
                code: .usage)
        }
        return object
    }

    static func typeName(_ value: JSONValue?) -> String {
        switch value {
        case nil, .null?: return "null"
        case .bool?: return "boolean"
        case .number?: return "number"
        case .string?: return "string"
        case .array?: return "array"
        case .object?: return "object"
        }
    }

    static func json(_ value: JSON, status: HTTPResponse.Status = .ok) -> Response {
        let body: ByteBuffer
        if case .written(let bytes) = value {
            // A page's JSON, written already: copied once, into the response, with its line's end.
            var buffer = ByteBufferAllocator().buffer(capacity: bytes.count + 1)
            buffer.writeBytes(bytes)
            buffer.writeInteger(UInt8(ascii: "\n"))
            body = buffer
        } else {
            body = ByteBuffer(bytes: value.line())
        }
        return Response(
            status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: body))
    }
}

extension Backend {
    /// Every store of `serve --stores` as one set (kept, as ``storeSet(key:make:)`` keeps each); nil for a server of
    /// one store.
    func allStores(_ options: ServerOptions) -> StoreSet? {
        guard !options.stores.isEmpty else { return nil }
        return storeSet(key: options.stores.map(\.name).joined(separator: ",")) { StoreSet(members: options.stores) }
    }

    /// Each remote store of `serve --stores`, with its replica's state.
    func replicaStatus(_ options: ServerOptions) -> [(name: String, replica: IndexReplica, status: IndexReplica.Status)]
    {
        (allStores(options)?.remoteMembers() ?? []).map { name, remote in
            (name, remote.replica, remote.replica.status())
        }
    }

    /// The row of `kind` whose UUID the path's `{uuid}` gives (the API's `/v1/items/{uuid}`, the page's
    /// `/items/{uuid}`): 400 for what is not a UUID, the store's own errors (404 for a row that is not there).
    /// `source` is the store read: the server's own unless a row page names another of `serve --stores`.
    func row(_ kind: TrackerURI.Kind, _ context: ServerContext, in source: StoreIndexer? = nil) async throws -> (
        uri: TrackerURI, entity: StoreEntity
    ) {
        let text = try context.parameters.require("uuid")
        guard let id = UUID(uuidString: text)?.uuidString.lowercased() else {
            throw Problem(.badRequest, "'\(text)' is not a UUID", code: .usage)
        }
        let store = (source ?? reader).store
        let uri = store.uri(kind, id)
        return (uri, try await run { try store.entity(for: uri) })
    }
}
