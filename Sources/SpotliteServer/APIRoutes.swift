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

    func register(on router: Router<BasicRequestContext>) {
        router.get("/healthz") { _, _ in Self.json(.object([("status", .string("ok"))])) }
        router.get("/openapi.json") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: OpenAPISpec.text)))
        }
        router.get("/v1/search") { request, _ in try await search(request) }
        router.get("/v1/items/:uuid") { _, context in try await entity(.item, context) }
        router.get("/v1/projects/:uuid") { _, context in try await entity(.project, context) }
        router.get("/v1/messages/:uuid") { _, context in try await entity(.message, context) }
        router.post("/v1/resolve") { request, _ in try await resolve(request) }
        router.get("/v1/status") { _, _ in
            let status = try await backend.run { try backend.reader.status() }
            return Self.json(StatusJSON.status(status))
        }
        router.get("/v1/subscriptions") { _, _ in
            let storeID = backend.storeID
            let all = try await backend.run { try backend.writer.store.read { try $0.subscriptions() } }
            return Self.json(.object([
                ("subscriptions", .array(all.map { SubscriptionJSON.subscription($0, storeID: storeID) }))
            ]))
        }
        router.post("/v1/subscriptions") { request, _ in try await subscribe(request) }
        router.get("/v1/subscriptions/:id") { _, context in
            let id = try context.parameters.require("id")
            guard let subscription = try await backend.run({ try backend.writer.store.read { try $0.subscription(id: id) } })
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
            try await streams.response(for: try context.parameters.require("id"), request: request)
        }
    }

    // MARK: - Search

    func search(_ request: Request) async throws -> Response {
        let search = try searchOptions(try FormQuery(request.uri.query))
        let started = DispatchTime.now().uptimeNanoseconds
        let outcome: SearchOutcome
        if let names = try FormQuery(request.uri.query)["stores"] {
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
            throw Problem(.badRequest, "this server searches one store; start it with `spotlite serve --stores …` to search several", code: .usage)
        }
        let known = options.stores.map(\.name)
        let names = selection == "all" ? known : selection.split(separator: ",").map(String.init)
        for name in names where !known.contains(name) {
            throw Problem(.badRequest, "no store named '\(name)' here; this server searches \(known.joined(separator: ", "))", code: .usage)
        }
        let members = options.stores.filter { names.contains($0.name) }
        return backend.storeSet(key: members.map(\.name).joined(separator: ",")) { StoreSet(members: members) }
    }

    /// The query and options of `/v1/search?q=…&limit&offset&sort&reverse&facets&partial&correct&spotlight`.
    func searchOptions(_ parameters: FormQuery) throws -> (text: String, options: SearchOptions) {
        guard let text = parameters["q"], !text.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw Problem(.badRequest, "give a query: /v1/search?q=leaking+tap", code: .usage)
        }
        if text.utf8.count > SearchQueryParser.maximumQueryBytes {
            throw Problem(
                .badRequest, "the query is \(text.utf8.count) bytes long; at most \(SearchQueryParser.maximumQueryBytes) are allowed",
                code: .usage)
        }
        var search = SearchOptions()
        search.request.limit = try integer(parameters, "limit", default: 20, in: 1...options.maximumLimit)
        search.request.offset = try integer(parameters, "offset", default: 0, in: 0...1_000_000)
        if let sort = parameters["sort"] {
            guard let value = SearchSort(rawValue: sort) else {
                throw Problem(
                    .badRequest, "sort takes \(SearchSort.allCases.map(\.rawValue).joined(separator: ", ")), not '\(sort)'",
                    code: .usage)
            }
            search.request.sort = value
        }
        search.request.reverse = try flag(parameters, "reverse")
        if search.request.reverse && search.request.sort == .relevance {
            throw Problem(.badRequest, "reverse needs sort=created, modified, priority or title", code: .usage)
        }
        if let facets = parameters["facets"], !facets.isEmpty {
            search.request.facets = try facets.split(separator: ",").map { name in
                guard let facet = SearchFacet(rawValue: String(name)) else {
                    throw Problem(.badRequest, "facets takes project, priority, status and store, not '\(name)'", code: .usage)
                }
                return facet
            }
        }
        search.partial = try flag(parameters, "partial")
        search.correct = try flag(parameters, "correct")
        search.syntax = try flag(parameters, "spotlight") ? .spotlight : .spotlite
        search.request.timeLimit = options.searchTimeLimit
        return (text, search)
    }

    func integer(_ parameters: FormQuery, _ name: String, default value: Int, in range: ClosedRange<Int>) throws -> Int {
        guard let text = parameters[name] else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw Problem(.badRequest, "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)", code: .usage)
        }
        return number
    }

    func flag(_ parameters: FormQuery, _ name: String) throws -> Bool {
        switch parameters[name] {
        case nil, "false", "0": return false
        case "", "true", "1": return true
        case let other?: throw Problem(.badRequest, "\(name) is true or false, not '\(other)'", code: .usage)
        }
    }

    // MARK: - Rows

    func entity(_ kind: TrackerURI.Kind, _ context: BasicRequestContext) async throws -> Response {
        let (uri, entity) = try await backend.row(kind, context)
        return Self.json(EntityJSON.json(entity, uri: uri))
    }

    /// `POST /v1/resolve` with `{"uris": ["tracker://…", …]}`: each URI's row, or what is wrong with it (as
    /// `spotlite resolve` reports on stderr), in order.
    func resolve(_ request: Request) async throws -> Response {
        let body = try await Self.body(request, limit: options.maximumBodyBytes)
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let uris = object["uris"] as? [Any]
        else {
            throw Problem(.badRequest, "send {\"uris\": [\"tracker://…\", …]} as JSON", code: .usage)
        }
        if uris.count > options.maximumResolveURIs {
            throw Problem(
                .contentTooLarge, "\(uris.count) URIs; one resolve takes at most \(options.maximumResolveURIs)",
                code: .usage)
        }
        let texts = try uris.map { value -> String in
            guard let text = value as? String else {
                throw Problem(.badRequest, "every URI is a string: tracker://<store>/item/<uuid>", code: .usage)
            }
            return text
        }
        let store = backend.reader.store
        // A server started with --stores resolves URIs of those stores too, each in the store its UUID names.
        let others = options.stores.isEmpty
            ? nil : backend.storeSet(key: options.stores.map(\.name).joined(separator: ",")) { StoreSet(members: options.stores) }
        let results = try await backend.run { () -> [JSON] in
            texts.map { text in
                do {
                    let uri = try TrackerURI(parsing: text)
                    if uri.storeID != store.uuid, let found = try others?.row(for: uri) {
                        return EntityJSON.json(found.copy.entity, uri: uri)
                    }
                    return EntityJSON.json(try store.entity(for: uri), uri: uri)
                } catch {
                    let problem = Problem(error)
                    return .object([("uri", .string(text)), ("error", problem.json)])
                }
            }
        }
        return Self.json(.object([("results", .array(results))]))
    }

    // MARK: - Subscriptions

    /// `POST /v1/subscriptions` with `{"query": "…", "spotlight": false}`: 201 with a new subscription, 200 with
    /// the one the same query already has.
    func subscribe(_ request: Request) async throws -> Response {
        let body = try await Self.body(request, limit: options.maximumBodyBytes)
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let query = object["query"] as? String, !query.trimmingCharacters(in: .whitespaces).isEmpty
        else {
            throw Problem(.badRequest, "send {\"query\": \"leaking tap\"} as JSON", code: .usage)
        }
        let syntax: Subscription.Syntax = (object["spotlight"] as? Bool ?? false) ? .spotlight : .spotlite
        let (subscription, created) = try await backend.run { try backend.writer.subscribe(query, syntax: syntax) }
        var response = Self.json(
            SubscriptionJSON.subscription(subscription, storeID: backend.storeID), status: created ? .created : .ok)
        response.headers[.location] = "/v1/subscriptions/\(subscription.id)"
        return response
    }

    // MARK: - Helpers

    static func json(_ value: JSON, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: value.text + "\n")))
    }

    /// The request body, up to `limit` bytes (413 beyond).
    static func body(_ request: Request, limit: Int) async throws -> Data {
        do {
            let buffer = try await request.body.collect(upTo: limit)
            return Data(buffer.readableBytesView)
        } catch {
            throw Problem(.contentTooLarge, "the request body is larger than \(limit) bytes", code: .usage)
        }
    }
}

extension Backend {
    /// The row of `kind` whose UUID the path's `{uuid}` gives (the API's `/v1/items/{uuid}`, the page's
    /// `/items/{uuid}`): 400 for what is not a UUID, the store's own errors (404 for a row that is not there).
    func row(_ kind: TrackerURI.Kind, _ context: BasicRequestContext) async throws -> (uri: TrackerURI, entity: StoreEntity) {
        let text = try context.parameters.require("uuid")
        guard let id = UUID(uuidString: text)?.uuidString.lowercased() else {
            throw Problem(.badRequest, "'\(text)' is not a UUID", code: .usage)
        }
        let uri = reader.store.uri(kind, id)
        return (uri, try await run { [reader] in try reader.store.entity(for: uri) })
    }
}
