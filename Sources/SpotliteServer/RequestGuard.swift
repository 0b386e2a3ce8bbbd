import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The context of each request: Hummingbird's, and the connection it came on (an event stream watches it close).
struct ServerContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

/// Every request passes here, in this order, before any route sees it:
///
/// 1. **Host**: the name it was sent to must be one the server answers as (an address, `localhost`, the
///    `--listen` name, or an `--allow-host` name), or it is 421: a page on another site whose name was rebound to
///    this machine's address (DNS rebinding) never reaches the store.
/// 2. **Credentials**, when a token is set: the bearer token, or a browser session made from it
///    (``BrowserSessions``); 401 otherwise. The page's shell and its script and style need none.
/// 3. **State-changing requests** (`POST`, `PUT`, `PATCH`, `DELETE`) from a browser must come from the server's own
///    origin or the `--cors` one (`Origin`, `Sec-Fetch-Site`), and, when a session cookie authorizes them, carry
///    its CSRF token: 403 otherwise.
/// 4. **Bodies** are JSON, declared as `application/json` (415 otherwise: a form or `text/plain`, which a browser
///    sends cross-site without asking first, is refused), at most ``ServerOptions/maximumBodyBytes`` (413), read
///    whole before the request takes a slot, among at most ``ServerOptions/maximumBodiesBeingRead`` at once (429).
/// 5. **Slots**: at most ``ServerOptions/maximumConcurrentRequests`` requests at once (429).
///
/// Errors become problem documents; CORS headers (for the one origin allowed) and the metrics are added last.
struct RequestGuard: RouterMiddleware {
    typealias Context = ServerContext
    let options: ServerOptions
    let hosts: HostNames
    let sessions: BrowserSessions
    let metrics: ServerMetrics
    /// The routes' paths and methods, for a 405 where the router answers 404.
    let routes: RouteTable
    let inFlight = OpenCount()
    let bodiesBeingRead = OpenCount()

    /// Paths anyone may read, token or not: the health check and the page's shell (no store data in either).
    static func isPublic(_ path: String) -> Bool {
        path == "/healthz" || path == "/" || path.hasPrefix("/assets/")
    }

    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!
    static let fetchSiteHeader = HTTPField.Name("Sec-Fetch-Site")!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let started = ContinuousClock.now
        var response: Response
        do {
            response = try await guarded(request, context: context, next: next)
        } catch {
            let problem = Problem(error)
            if problem.status == .internalServerError {
                context.logger.error("request failed: \(error)", metadata: ["path": "\(request.uri.path)"])
            }
            response = problem.response
        }
        if let origin = options.corsOrigin {
            response.headers[.accessControlAllowOrigin] = origin
            response.headers[.vary] = "Origin"
        }
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.referrerPolicy] = "no-referrer"
        let route = context.endpointPath ?? "unmatched"
        metrics.record(route: route, status: response.status.code, elapsed: ContinuousClock.now - started)
        return response
    }

    private func guarded(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        try hosts.check(request.head.authority)
        if request.method == .options, let origin = options.corsOrigin {
            // A CORS preflight of the allowed origin.
            return Response(
                status: .noContent,
                headers: [
                    .accessControlAllowOrigin: origin, .accessControlAllowMethods: "GET, POST, DELETE",
                    .accessControlAllowHeaders: "Authorization, Content-Type, Last-Event-ID",
                    .accessControlMaxAge: "600",
                ])
        }
        let session = try authorize(request)
        let changesState = [.post, .put, .patch, .delete].contains(request.method)
        if changesState { try checkOrigin(request, session: session) }
        var request = request
        if Self.hasBody(request) {
            try await readBody(&request)
        }
        guard inFlight.enter(limit: options.maximumConcurrentRequests) else {
            throw Problem.tooMany("\(options.maximumConcurrentRequests) requests are being answered; try again shortly")
        }
        defer { inFlight.leave() }
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            // The router's own 404 (a handler's is a Problem): no route has the path, or none under this method.
            throw unrouted(request)
        }
    }

    /// The problem for a request no route takes: 405 with `Allow` when the path is served with other methods,
    /// else 404.
    private func unrouted(_ request: Request) -> Problem {
        let path = request.uri.path
        let allowed = routes.methods(for: path)
        guard !allowed.isEmpty else {
            return Problem(
                .notFound,
                "no such path \(path): the API is under /v1 (described at /openapi.json), the search page at /",
                code: .notFound)
        }
        let names = allowed.map(\.rawValue).joined(separator: ", ")
        var problem = Problem(
            .methodNotAllowed, "\(path) answers \(names), not \(request.method.rawValue)", code: .usage)
        problem.headers[.allow] = names
        return problem
    }

    /// Who may make the request: nil when no token is set, the path is public, or the bearer token came; the
    /// session id when a session cookie authorizes it. Throws 401 otherwise.
    private func authorize(_ request: Request) throws -> String? {
        guard let token = options.token, !Self.isPublic(request.uri.path) else { return nil }
        if ServerOptions.authorizes(request.headers[.authorization], token: token) { return nil }
        if let id = BrowserSessions.sessionID(inCookies: request.headers[.cookie], authority: request.head.authority),
            sessions.csrf(of: id) != nil
        {
            return id
        }
        var problem = Problem(
            .unauthorized,
            "this server needs its token: send Authorization: Bearer <token>, or open the page as /#token=<token>")
        problem.headers[.wwwAuthenticate] = "Bearer"
        throw problem
    }

    /// A state-changing request sent by a browser must come from this server's page or the `--cors` origin; one
    /// authorized by a session cookie must also carry the session's CSRF token.
    private func checkOrigin(_ request: Request, session: String?) throws {
        let ownOrigin = request.head.authority.map { "http://" + $0.lowercased() }
        if let origin = request.headers[.origin] {
            let allowed = origin.lowercased() == ownOrigin || (options.corsOrigin.map { origin == $0 } ?? false)
            guard allowed else {
                throw Problem(
                    .forbidden,
                    "a page of \(origin) may not change this server's store; only its own page"
                        + (options.corsOrigin.map { " and \($0)" } ?? "") + " may")
            }
        } else if let site = request.headers[Self.fetchSiteHeader], site != "same-origin", site != "none" {
            throw Problem(.forbidden, "a \(site) request may not change this server's store; only its own page may")
        }
        if let session {
            let given = Array((request.headers[Self.csrfHeader] ?? "").utf8)
            guard let expected = sessions.csrf(of: session),
                ServerOptions.constantTimeEqual(given, Array(expected.utf8))
            else {
                throw Problem(
                    .forbidden, "a request made with the session cookie needs its X-CSRF-Token (GET /v1/session)")
            }
        }
    }

    /// Whether the request says it has a body.
    static func hasBody(_ request: Request) -> Bool {
        if request.headers[.transferEncoding] != nil { return true }
        return (request.headers[.contentLength].flatMap { Int($0) } ?? 0) > 0
    }

    /// Reads the body whole, into the request: JSON only, within the size limit, among a bounded number of bodies
    /// read at once (a slow sender holds one of those until ``ConnectionDeadlines`` closes its connection).
    private func readBody(_ request: inout Request) async throws {
        let type = request.headers[.contentType] ?? ""
        let mediaType = type.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard mediaType == "application/json" else {
            throw Problem(
                .unsupportedMediaType,
                type.isEmpty
                    ? "send the body as JSON, with Content-Type: application/json"
                    : "the body is \(type.prefix(80)); send JSON, with Content-Type: application/json")
        }
        guard bodiesBeingRead.enter(limit: options.maximumBodiesBeingRead) else {
            throw Problem.tooMany("\(options.maximumBodiesBeingRead) request bodies are being read; try again shortly")
        }
        defer { bodiesBeingRead.leave() }
        do {
            _ = try await request.collectBody(upTo: options.maximumBodyBytes)
        } catch {
            throw Problem(
                .contentTooLarge, "the request body is larger than \(options.maximumBodyBytes) bytes", code: .usage)
        }
    }
}

/// The host names a request may be sent to (its `Host` header): any IP address (a page whose name was rebound to
/// this machine names its own host, never an address), `localhost`, the name `--listen` gave, and those
/// `--allow-host` adds.
struct HostNames: Sendable {
    let names: Set<String>

    init(listenHost: String, allowed: [String]) {
        names = Set(([listenHost, "localhost"] + allowed).map(Self.normalized))
    }

    static func normalized(_ name: String) -> String {
        var name = name.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        return name
    }

    /// Throws 400 for a missing `Host` and 421 for one this server does not answer as.
    func check(_ authority: String?) throws {
        guard let authority, !authority.isEmpty else {
            throw Problem(.badRequest, "the request has no Host header; HTTP/1.1 needs one", code: .usage)
        }
        guard let host = Self.host(of: authority) else {
            throw Problem(
                .badRequest, "the Host header '\(authority.prefix(100))' is not a host and port", code: .usage)
        }
        if Self.isAddress(host) || names.contains(Self.normalized(host)) { return }
        throw Problem(
            .misdirectedRequest,
            "this server does not answer as '\(host.prefix(100))'; address it by its own name or address "
                + "(`spotlite serve --allow-host NAME` adds a name)")
    }

    /// The host of `host[:port]` or `[v6][:port]`, or nil when the port is not a number.
    static func host(of authority: String) -> String? {
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            let rest = authority[authority.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isASCIIDigit)) else {
                return nil
            }
            return String(authority[...close])
        }
        let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, !parts[0].isEmpty else { return nil }
        if parts.count == 2 && (parts[1].isEmpty || !parts[1].allSatisfy(\.isASCIIDigit)) { return nil }
        return String(parts[0])
    }

    /// Whether `host` is an IPv4 address in dotted decimal, or an IPv6 one in brackets.
    static func isAddress(_ host: String) -> Bool {
        if host.hasPrefix("[") && host.hasSuffix("]") {
            var address = in6_addr()
            return inet_pton(AF_INET6, String(host.dropFirst().dropLast()), &address) == 1
        }
        var address = in_addr()
        return inet_pton(AF_INET, host, &address) == 1
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

extension HTTPField.Name {
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
}
