import Foundation
import Indexer
import NIOCore
import TrackerStore

/// How `spotlite serve` listens and what it allows.
public struct ServerOptions: Sendable {
    /// The address to listen on, as given (a name or an address); loopback unless a token guards the server.
    public var host = "127.0.0.1"
    public var port = 7700
    /// The bearer token every request but `/healthz` and the page's shell must carry (`Authorization: Bearer …`),
    /// compared in constant time; nil when the server listens on loopback without one.
    public var token: String?
    /// The one origin allowed to call the API from a browser (CORS); nil sends no CORS headers.
    public var corsOrigin: String?
    /// Host names requests may name besides those the server listens as (`serve --allow-host`): the names a
    /// reverse proxy or a DNS name of this machine give it.
    public var allowedHosts: [String] = []
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
    /// Request bodies being read at once: more are answered 429, so that slow senders hold these, not the slots of
    /// ``maximumConcurrentRequests``.
    public var maximumBodiesBeingRead = 32
    /// Event streams open at once: more are answered 429.
    public var maximumEventStreams = 64
    /// How often an idle event stream sends a comment, so proxies and clients see it alive.
    public var heartbeatInterval: Double = 15
    /// Seconds a connection may take to send a request's head (from its opening, or from the end of its last
    /// response): a connection that sends nothing, or its headers a byte at a time, is closed then.
    public var headerTimeout: Double = 10
    /// Seconds a request's whole body may take to arrive after its head: a slower body is answered 408 and its
    /// connection closed.
    public var bodyTimeout: Double = 10
    /// Connections open at once: beyond it, new ones wait to be accepted until others close.
    public var maximumConnections = 1_024
    /// The subscriptions a store may hold (`serve --max-subscriptions`), and the rows one may follow and all of
    /// them together (`--max-subscription-rows`): checked when a subscription is made.
    public var subscriptionLimits = SubscriptionLimits()
    /// The named stores `/v1/search?stores=…` may search together (`serve --stores`); none: one store only.
    public var stores: [StoreSet.Member] = []
    /// How long a browser session made from the token (`POST /v1/session`) lasts without being used.
    public var sessionIdleSeconds: Double = 12 * 3_600

    public init() {}

    /// Whether `address` is a loopback address: `127.0.0.0/8`, `::1`, or an IPv4-mapped `::ffff:127.…`.
    public static func isLoopback(_ address: SocketAddress) -> Bool {
        switch address {
        case .v4(let v4):
            return UInt32(bigEndian: v4.address.sin_addr.s_addr) >> 24 == 127
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            if bytes[..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
            return bytes[..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
        case .unixDomainSocket:
            return false
        }
    }

    /// Whether `address` is the wildcard address (`0.0.0.0`, `::`): every interface of the machine.
    static func isWildcard(_ address: SocketAddress) -> Bool {
        switch address {
        case .v4(let v4): return v4.address.sin_addr.s_addr == 0
        case .v6(let v6): return withUnsafeBytes(of: v6.address.sin6_addr) { $0.allSatisfy { $0 == 0 } }
        case .unixDomainSocket: return false
        }
    }

    /// The address `host` names, resolved once (the first the resolver gives, as a server binding the name would
    /// take): the server binds this address, so that whether it is loopback is decided by what is bound, not by
    /// the name (a hosts file may map `localhost` anywhere).
    static func resolve(_ host: String, port: Int) throws -> SocketAddress {
        do {
            return try SocketAddress.makeAddressResolvingHost(host, port: port)
        } catch {
            throw ServerError(
                "cannot resolve the --listen address '\(host)': \(error); give an IP address such as 127.0.0.1")
        }
    }

    /// Whether `name` is a DNS host name: labels of letters, digits and hyphens, separated by dots.
    public static func isHostName(_ name: String) -> Bool {
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        return !name.isEmpty && name.utf8.count <= 253
            && labels.allSatisfy { label in
                !label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                    && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
            }
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

    /// Whether `given` (an `Authorization` header) carries `token` as a bearer credential (the scheme in any
    /// case, RFC 9110 §11.1), compared in time independent of where they differ.
    static func authorizes(_ given: String?, token: String) -> Bool {
        guard let given, given.utf8.count > 7, given.prefix(7).lowercased() == "bearer " else { return false }
        let presented = Array(given.utf8.dropFirst(7))
        return constantTimeEqual(presented, Array(token.utf8))
    }

    /// Whether `a` equals `b`, in time that depends on `b`'s length only.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<b.count {
            difference |= b[index] ^ (index < a.count ? a[index] : 0)
        }
        return difference == 0
    }
}
