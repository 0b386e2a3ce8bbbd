import Indexer
import SpotliteJSON
import TrackerStore

/// The rows of a remote store, read from its host's `spotlite serve` with `POST /v1/resolve`: one request per page
/// of hits (up to the server's 1,000 URIs a request). Nothing but Spotlite's HTTP API crosses the network.
public struct RemoteRows: RowSource {
    public let storeID: String
    let exchange: HTTPExchange

    /// URIs a request asks for: the server's `maximumResolveURIs`.
    static let urisPerRequest = 1_000
    /// The largest answer read: a page of rows with long details.
    public static let maximumAnswerBytes = 64 << 20

    /// `serve`: the host's address (``ServeURL/parse(_:)``); `timeout`: seconds a request may take.
    public init(storeID: String, serve: ServeURL, token: String?, timeout: Double) {
        self.storeID = storeID
        self.exchange = HTTPExchange(
            host: serve.host, port: serve.port, timeout: timeout, maximumBytes: Self.maximumAnswerBytes, token: token)
    }

    public func entities(items: [String], projects: [String], messages: [String]) throws -> [TrackerURI.Kind: [String:
        StoreEntity]]
    {
        let uris =
            items.map { TrackerURI(storeID: storeID, kind: .item, entityID: $0) }
            + projects.map { TrackerURI(storeID: storeID, kind: .project, entityID: $0) }
            + messages.map { TrackerURI(storeID: storeID, kind: .message, entityID: $0) }
        var rows: [TrackerURI.Kind: [String: StoreEntity]] = [:]
        var start = 0
        while start < uris.count {
            let page = uris[start..<min(uris.count, start + Self.urisPerRequest)]
            start = page.endIndex
            for (uri, entity) in try resolve(Array(page)) { rows[uri.kind, default: [:]][uri.entityID] = entity }
        }
        return rows
    }

    public func projectTitles(ids: [String]) throws -> [String: String] {
        try entities(items: [], projects: ids, messages: [])[.project, default: [:]].mapValues(\.title)
    }

    /// None: the titles of a remote store's projects are not read for a misspelt project filter.
    public func projectSuggestions(for titles: [String]) throws -> [ProjectSuggestion] { [] }

    /// The rows of `uris` that the host has; those it reports gone are left out. Throws when it cannot be asked, or
    /// answers with an error or with what is not the rows asked for.
    func resolve(_ uris: [TrackerURI]) throws(IndexerError) -> [(TrackerURI, StoreEntity)] {
        let request = JSON.object([("uris", .array(uris.map { .string($0.description) }))])
        let value = try exchange.json("/v1/resolve", body: request)
        guard case .object(let fields) = value, case .array(let results)? = fields["results"],
            results.count == uris.count
        else {
            throw IndexerError(.remote, "\(exchange.origin) answered /v1/resolve with what is not its results")
        }
        var rows: [(TrackerURI, StoreEntity)] = []
        for (uri, result) in zip(uris, results) {
            if let (resolved, entity) = EntityJSON.decode(result), resolved == uri {
                rows.append((uri, entity))
            } else if case .object(let fields) = result, case .object(let error)? = fields["error"] {
                // A row deleted since the copy was made: left out, as a local store's gone row is.
                guard case .string("not-found")? = error["code"] else {
                    throw IndexerError(.remote, "\(exchange.origin) could not resolve \(uri): \(Self.detail(error))")
                }
            } else {
                throw IndexerError(
                    .remote, "\(exchange.origin) answered /v1/resolve for \(uri) with what is not its row")
            }
        }
        return rows
    }

    static func detail(_ problem: [String: JSONValue]) -> String {
        if case .string(let detail)? = problem["detail"] { return detail }
        if case .string(let code)? = problem["code"] { return code }
        return "no reason given"
    }
}

/// The address of a `spotlite serve`: `http://HOST:PORT` (no path; Spotlite does not speak TLS itself).
public struct ServeURL: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `http://HOST:PORT` (an IPv6 host in brackets), or nil.
    public static func parse(_ text: String) -> ServeURL? {
        guard text.hasPrefix("http://") else { return nil }
        var rest = Substring(text.dropFirst("http://".count))
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard let (host, port) = IndexPublisher.parseAddress(String(rest)), !host.contains("/") else { return nil }
        return ServeURL(host: host, port: port)
    }

    public var description: String { "http://\(host.contains(":") ? "[\(host)]" : host):\(port)" }
}

/// What a remote host's `serve` says of its store (`GET /v1/status`): which store it is, and its newest change.
public struct RemoteStatus: Sendable {
    public var storeID: String
    public var lastChange: Int64

    /// Asks `serve` for its status.
    public static func fetch(_ serve: ServeURL, token: String?, timeout: Double) throws(IndexerError)
        -> RemoteStatus
    {
        let exchange = HTTPExchange(
            host: serve.host, port: serve.port, timeout: timeout, maximumBytes: 1 << 20, token: token)
        let value = try exchange.json("/v1/status", body: nil)
        guard case .object(let fields) = value, case .string(let uuid)? = fields["store_uuid"],
            case .number(let last)? = fields["last_change"], let lastChange = Int64(exactly: last)
        else {
            throw IndexerError(.remote, "\(serve) answered /v1/status with what is not a Spotlite status")
        }
        return RemoteStatus(storeID: uuid, lastChange: lastChange)
    }
}

extension HTTPExchange {
    /// The JSON answer of `path`: a 200's body parsed; any other status is thrown with the problem's detail.
    func json(_ path: String, body: JSON?) throws(IndexerError) -> JSONValue {
        let answer = try send(path, json: body?.line())
        let value = try? StrictJSON.parse(answer.body)
        guard answer.status == 200 else {
            var reason = "status \(answer.status)"
            if case .object(let problem)? = value { reason += ": " + RemoteRows.detail(problem) }
            if answer.status == 401 {
                reason += "; give the store the server's token (token_file in stores.toml)"
            }
            throw IndexerError(.remote, "\(origin) refused \(path) (\(reason))")
        }
        guard let value else { throw IndexerError(.remote, "\(origin) answered \(path) with what is not JSON") }
        return value
    }
}
