import Indexer
import Foundation

/// How `spotlite serve` listens and what it allows.
public struct ServerOptions: Sendable {
    /// The address to listen on; loopback unless a token guards the server.
    public var host = "127.0.0.1"
    public var port = 7700
    /// The bearer token every request but `/healthz` must carry (`Authorization: Bearer …`), compared in constant
    /// time; nil when the server listens on loopback without one.
    public var token: String?
    /// The one origin allowed to call the API from a browser (CORS); nil sends no CORS headers.
    public var corsOrigin: String?
    /// The largest request body (a resolve of many URIs, a subscription): larger is 413.
    public var maximumBodyBytes = 1 << 20
    /// The most URIs one resolve takes.
    public var maximumResolveURIs = 1_000
    /// The most hits one search page holds.
    public var maximumLimit = 1_000
    /// Seconds a search may take: Xapian stops matching then, and the request is answered 503.
    public var searchTimeLimit: Double = 2
    /// Requests handled at once (event streams aside): more are answered 429.
    public var maximumConcurrentRequests = 256
    /// Event streams open at once: more are answered 429.
    public var maximumEventStreams = 64
    /// How often an idle event stream sends a comment, so proxies and clients see it alive.
    public var heartbeatInterval: Double = 15
    /// The named stores `/v1/search?stores=…` may search together (`serve --stores`); none: one store only.
    public var stores: [StoreSet.Member] = []

    public init() {}

    /// Whether `host` is a loopback address (`127.0.0.0/8`, `::1`, `localhost`): the only addresses the server
    /// listens on without a token.
    public static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" || host == "[::1]" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// `HOST:PORT` (`[::1]:7700` for IPv6; port 0 for any free one) as a host and a port, or nil for anything else.
    public static func parseListen(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        var host = String(text[..<colon])
        guard let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port), !host.isEmpty else {
            return nil
        }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host, port)
    }

    /// Whether `given` (an `Authorization` header) carries `token`, compared in time independent of where they
    /// differ.
    static func authorizes(_ given: String?, token: String) -> Bool {
        guard let given, given.hasPrefix("Bearer ") else { return false }
        let presented = Array(given.dropFirst("Bearer ".count).utf8)
        let expected = Array(token.utf8)
        var difference = UInt8(presented.count == expected.count ? 0 : 1)
        for index in 0..<expected.count {
            difference |= expected[index] ^ (index < presented.count ? presented[index] : 0)
        }
        return difference == 0
    }
}
