import Foundation
import HTTPTypes
import Hummingbird
import Indexer
import Logging
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

    /// Opens the store (twice: read-only for the API's reads) and checks the options. Throws ``ServerError`` for
    /// options that would expose the store (another address without a token).
    public init(storePath: String, indexPath: String, options: ServerOptions, logger: Logger) throws {
        if !ServerOptions.isLoopback(options.host) && options.token == nil {
            throw ServerError(
                "--listen \(options.host):\(options.port) is not a loopback address; give --token-file so that only "
                    + "those with the token can read the store")
        }
        self.options = options
        self.logger = logger
        backend = try Backend(storePath: storePath, indexPath: indexPath)
    }

    /// Runs until SIGTERM or SIGINT (then returns normally), or until the index cannot be kept live (then throws).
    /// `onListening` is told the address once the server accepts connections.
    public func run(onListening: @escaping @Sendable (String) -> Void = { _ in }) async throws {
        let hub = EventHub()
        let metrics = ServerMetrics()
        var watcherOptions = IndexWatcher.Options()
        watcherOptions.purpose = IndexWatcher.servePurpose
        watcherOptions.onSubscriptionEvents = { hub.notify($0) }
        let watcher = try IndexWatcher(
            indexer: backend.writer, options: watcherOptions, logger: logger, lockTimeout: StoreIndexer.defaultLockTimeout)
        let live = LiveIndexService(watcher: watcher, hub: hub, logger: logger)

        let router = Router()
        router.add(middleware: GuardMiddleware(options: options, metrics: metrics, backend: backend))
        let streams = EventStreams(backend: backend, hub: hub, metrics: metrics, options: options)
        APIRoutes(backend: backend, options: options, streams: streams).register(on: router)
        Pages(backend: backend).register(on: router)
        router.get("/metrics") { [backend] _, _ in
            let status = try? await backend.run { try backend.reader.status() }
            metrics.setIndex(documents: status?.indexedDocuments, behind: status?.changesBehind)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.text)))
        }

        let (host, logger) = (options.host, logger)
        let application = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(host, port: options.port), serverName: "spotlite"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                let shown = host.contains(":") ? "[\(host)]" : host
                onListening("http://\(shown):\(port)")
            },
            logger: logger)
        // Shut down in reverse order: the event streams end first (the server would wait for them as requests in
        // flight), then the server drains the other requests, then the watcher commits and stops.
        let group = ServiceGroup(
            configuration: .init(
                services: [live, application, StreamCloser(hub: hub)], gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        try await group.run()
    }
}

/// A reason `serve` cannot start, said in one line.
public struct ServerError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Keeps the index live while the server runs: the watcher on a thread of its own (it blocks), stopped after the
/// server has drained, so that what it applied is committed. A watcher that fails for good stops the server.
struct LiveIndexService: Service {
    let watcher: IndexWatcher
    let hub: EventHub
    let logger: Logger

    func run() async throws {
        let finished = WatcherResult()
        let thread = Thread {
            do {
                try watcher.run()
                finished.set(nil)
            } catch {
                finished.set(error)
            }
        }
        thread.name = "spotlite serve watcher"
        thread.start()
        // Wait for the server's graceful shutdown, or for the watcher to end on its own (which is a failure).
        await withGracefulShutdownHandler {
            while !finished.isDone && !Task.isShuttingDownGracefully && !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 100_000_000)
            }
        } onGracefulShutdown: {
            hub.close()
        }
        hub.close()
        watcher.stop()
        while !finished.isDone { try? await Task.sleep(nanoseconds: 10_000_000) }
        if let error = finished.error, !Task.isShuttingDownGracefully {
            logger.error("the index could not be kept live: \(error)")
            throw error
        }
    }
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

/// How the watcher's thread ended.
final class WatcherResult: @unchecked Sendable {
    private let lock = NSLock()
    private var done = false
    private var failure: (any Error)?

    func set(_ error: (any Error)?) {
        lock.lock()
        done = true
        failure = error
        lock.unlock()
    }

    var isDone: Bool {
        lock.lock()
        defer { lock.unlock() }
        return done
    }

    var error: (any Error)? {
        lock.lock()
        defer { lock.unlock() }
        return failure
    }
}

/// Every request passes here: the token (when one is set), the bound on requests at once, CORS for the one origin
/// allowed, errors as problem documents, and the metrics.
struct GuardMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext
    let options: ServerOptions
    let metrics: ServerMetrics
    let backend: Backend
    let inFlight = OpenCount()

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
        let route = context.endpointPath ?? "unmatched"
        metrics.record(route: route, status: response.status.code, elapsed: ContinuousClock.now - started)
        return response
    }

    private func guarded(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        if request.method == .options, let origin = options.corsOrigin {
            // A CORS preflight of the allowed origin.
            return Response(status: .noContent, headers: [
                .accessControlAllowOrigin: origin, .accessControlAllowMethods: "GET, POST, DELETE",
                .accessControlAllowHeaders: "Authorization, Content-Type, Last-Event-ID", .accessControlMaxAge: "600",
            ])
        }
        if let token = options.token, request.uri.path != "/healthz",
            !ServerOptions.authorizes(request.headers[.authorization], token: token)
        {
            var problem = Problem(.unauthorized, "this server needs its token: send Authorization: Bearer <token>")
            problem.headers[.wwwAuthenticate] = "Bearer"
            throw problem
        }
        guard inFlight.enter(limit: options.maximumConcurrentRequests) else {
            var problem = Problem(
                .tooManyRequests, "\(options.maximumConcurrentRequests) requests are being answered; try again shortly")
            problem.headers[.retryAfter] = "1"
            throw problem
        }
        defer { inFlight.leave() }
        return try await next(request, context)
    }
}
