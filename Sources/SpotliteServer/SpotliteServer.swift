import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Indexer
import Logging
import NIOCore
import ServiceLifecycle
import TrackerStore

/// `spotlite serve`: one long-lived process per store that keeps its index live (the watcher of `spotlite watch`,
/// which turns it away, as it turns `watch` away) and answers the JSON API, subscriptions' event streams and the
/// search page from long-lived readers.
///
/// SIGTERM and SIGINT stop it gracefully: it stops accepting connections, ends the event streams, lets the
/// requests in flight finish, then commits what the watcher applied and exits.
public final class SpotliteServer: Sendable {
    let backend: Backend
    let options: ServerOptions
    let logger: Logger
    /// The address the server binds: ``ServerOptions/host`` resolved once, before anything is served.
    let address: SocketAddress

    /// Opens the store (twice: read-only for the API's reads) and checks the options. Throws ``ServerError`` for
    /// options that would expose the store: an address beyond loopback without a token. Whether the address is
    /// loopback is decided by the address the name resolves to, which is the one bound, not by the name.
    public init(storePath: String, indexPath: String, options: ServerOptions, logger: Logger) throws {
        address = try ServerOptions.resolve(options.host, port: options.port)
        if !ServerOptions.isLoopback(address) && options.token == nil {
            let resolved = address.ipAddress.map { $0 == options.host ? "" : " (\($0))" } ?? ""
            throw ServerError(
                "--listen \(options.host):\(options.port)\(resolved) is not a loopback address; give --token-file so "
                    + "that only those with the token can read the store")
        }
        self.options = options
        self.logger = logger
        backend = try Backend(storePath: storePath, indexPath: indexPath)
    }

    /// Runs until SIGTERM or SIGINT (then returns normally), or until the index cannot be kept live (then throws).
    /// `onListening` is told the address once the server accepts connections.
    /// `services` run beside it and are shut down last (e.g. the ``IndexPublisher`` of `--publish`).
    public func run(services: [any Service] = [], onListening: @escaping @Sendable (String) -> Void = { _ in })
        async throws
    {
        let parts = try makeParts()
        let application = makeApplication(parts, onListening: onListening)
        // Shut down in reverse order: the event streams end first (the server would wait for them as requests in
        // flight), then the server drains the other requests, then the watcher commits and stops, then the rest.
        let group = ServiceGroup(
            configuration: .init(
                services: services + [parts.live, application, StreamCloser(hub: parts.hub)],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    /// What the server is made of: the watcher that keeps the index live, the hub that wakes event streams, and the
    /// router of every route behind the ``RequestGuard``.
    struct Parts {
        let hub: EventHub
        let live: IndexWatcher
        let router: Router<ServerContext>
    }

    func makeParts() throws -> Parts {
        let hub = EventHub()
        let metrics = ServerMetrics()
        var watcherOptions = IndexWatcher.Options()
        watcherOptions.purpose = StoreIndexer.servePurpose
        watcherOptions.onSubscriptionEvents = { hub.notify($0) }
        let live = try IndexWatcher(
            indexer: backend.writer, options: watcherOptions, logger: logger,
            lockTimeout: StoreIndexer.defaultLockTimeout)

        // HEAD is answered wherever GET is, as GET without its body.
        let router = Router(context: ServerContext.self, options: .autoGenerateHeadEndpoints)
        let sessions = BrowserSessions(idleSeconds: options.sessionIdleSeconds)
        let hosts = HostNames(listenHost: options.host, allowed: options.allowedHosts)
        let routes = RecordingRouter(router: router, table: RouteTable())
        router.add(
            middleware: RequestGuard(
                options: options, hosts: hosts, sessions: sessions, metrics: metrics, routes: routes.table))
        let streams = EventStreams(backend: backend, hub: hub, metrics: metrics, options: options)
        APIRoutes(backend: backend, options: options, streams: streams, sessions: sessions).register(on: routes)
        Pages(backend: backend, options: options).register(on: routes)
        routes.get("/metrics") { [backend, options] _, _ in
            let status = try? await backend.run { try backend.reader.status() }
            metrics.setIndex(documents: status?.indexedDocuments, behind: status?.changesBehind)
            let now = Date()
            for (name, _, replica) in (try? await backend.run { backend.replicaStatus(options) }) ?? [] {
                metrics.setReplica(
                    store: name, secondsSinceCopy: replica.copiedAt.map { max(0, now.timeIntervalSince($0)) },
                    changesBehind: replica.changesBehind, failing: replica.error != nil)
            }
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.text)))
        }
        return Parts(hub: hub, live: live, router: router)
    }

    /// The HTTP server over `parts`: HTTP/1.1 with the connection deadlines, at most
    /// ``ServerOptions/maximumConnections`` connections, bound to ``address``.
    func makeApplication(
        _ parts: Parts, services: [any Service] = [], onListening: @escaping @Sendable (String) -> Void
    ) -> some ApplicationProtocol {
        let (options, logger) = (options, logger)
        let bind: BindAddress = .hostname(address.ipAddress ?? options.host, port: options.port)
        let http = HTTP1Channel.Configuration(additionalChannelHandlers: [
            ConnectionDeadlines(headerTimeout: options.headerTimeout, bodyTimeout: options.bodyTimeout)
        ])
        return Application(
            router: parts.router,
            server: .http1(configuration: http),
            configuration: ApplicationConfiguration(
                address: bind, serverName: "spotlite",
                availableConnectionsDelegate: MaximumAvailableConnections(options.maximumConnections, logger: logger)),
            services: services,
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                let host = channel.localAddress?.ipAddress ?? options.host
                onListening("http://\(host.contains(":") ? "[\(host)]" : host):\(port)")
            },
            logger: logger)
    }
}

/// A reason `serve` cannot start, said in one line.
public struct ServerError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Ends every event stream when the server begins to shut down, so that the server's drain does not wait for
/// streams that never end on their own.
struct StreamCloser: Service {
    let hub: EventHub

    func run() async throws {
        try? await gracefulShutdown()
        hub.close()
    }
}
