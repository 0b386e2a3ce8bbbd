import Indexer
import NIOCore
import NIOHTTP1
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// One HTTP/1.1 request to another host's `spotlite serve`, blocking the calling thread (a search runs on a thread
/// of its own, never on an event loop), with one deadline for the whole exchange (connecting, sending, the answer)
/// and a cap on the answer's size. A connection per request, closed after it: a page of hits makes one.
struct HTTPExchange: Sendable {
    var host: String
    var port: Int
    /// Seconds the whole exchange may take.
    var timeout: Double
    /// Bytes of answer body accepted; a larger answer is a failure, not read on.
    var maximumBytes: Int
    /// Sent as `Authorization: Bearer <token>` when set.
    var token: String?

    struct Answer: Sendable {
        var status: Int
        var body: [UInt8]
    }

    /// Where, for messages: `http://host:port`.
    var origin: String { "http://\(host.contains(":") ? "[\(host)]" : host):\(port)" }

    /// Sends a request for `path`: a POST of `body` (JSON), or a GET without one. Throws
    /// ``IndexerError/Code-swift.struct/remote`` when the host cannot be reached, does not answer in time, or answers
    /// more than ``maximumBytes``.
    func send(_ path: String, json body: [UInt8]?) throws(IndexerError) -> Answer {
        let group = MultiThreadedEventLoopGroup.singleton
        let loop = group.next()
        let promise = loop.makePromise(of: Answer.self)
        let collector = AnswerCollector(promise: promise, maximumBytes: maximumBytes)
        let milliseconds = Int64(max(1, (timeout * 1000).rounded()))
        let deadline = loop.scheduleTask(in: .milliseconds(milliseconds)) {
            collector.fail(.timedOut)
        }
        defer { deadline.cancel() }
        let bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(.milliseconds(milliseconds))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(collector)
                }
            }
        var head = HTTPRequestHead(version: .http1_1, method: body == nil ? .GET : .POST, uri: path)
        head.headers.add(name: "Host", value: origin.dropFirst("http://".count).description)
        head.headers.add(name: "Accept", value: "application/json")
        if let body {
            head.headers.add(name: "Content-Type", value: "application/json")
            head.headers.add(name: "Content-Length", value: String(body.count))
        }
        head.headers.add(name: "Connection", value: "close")
        if let token { head.headers.add(name: "Authorization", value: "Bearer \(token)") }
        let connected = bootstrap.connect(host: host, port: port)
        connected.whenSuccess { channel in
            channel.write(HTTPClientRequestPart.head(head), promise: nil)
            if let body {
                channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: body))), promise: nil)
            }
            channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        }
        connected.whenFailure { error in collector.fail(.unreachable(Self.reason(error))) }
        defer { connected.whenSuccess { $0.close(promise: nil) } }
        do {
            return try promise.futureResult.wait()
        } catch let failure as ExchangeFailure {
            throw IndexerError(.remote, failure.sentence(origin: origin, timeout: timeout, maximumBytes: maximumBytes))
        } catch {
            throw IndexerError(.remote, "\(origin) failed: \(error)")
        }
    }
}

extension HTTPExchange {
    /// Why a connection failed, in a few words (`connection refused`), not NIO's description of its attempts.
    static func reason(_ error: any Error) -> String {
        switch error {
        case let error as NIOConnectionError:
            return error.connectionErrors.first.map { reason($0.error) } ?? "no address for the host"
        case let error as IOError:
            return String(cString: strerror(error.errnoCode))
        case ChannelError.connectTimeout:
            return "the connection was not accepted in time"
        default:
            return "\(error)"
        }
    }
}

/// Why an exchange failed.
enum ExchangeFailure: Error {
    case timedOut
    case unreachable(String)
    case tooLarge
    case closedEarly
    case broken(String)

    func sentence(origin: String, timeout: Double, maximumBytes: Int) -> String {
        switch self {
        case .timedOut: return "\(origin) did not answer within \(timeout) s"
        case .unreachable(let reason): return "cannot reach \(origin): \(reason)"
        case .tooLarge: return "\(origin) answered more than \(maximumBytes / (1 << 20)) MiB; refused"
        case .closedEarly: return "\(origin) closed the connection before its answer was complete"
        case .broken(let reason): return "\(origin) answered what is not HTTP: \(reason)"
        }
    }
}

/// Collects one response (status and body, up to a cap) and fulfils the promise once: with the answer, or the first
/// failure (the deadline, a reset, a body too large). Used only on its channel's event loop, where the deadline and the
/// connection's callbacks run too: hence unchecked.
final class AnswerCollector: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart

    private let promise: EventLoopPromise<HTTPExchange.Answer>
    private let maximumBytes: Int
    private var status = 0
    private var body: [UInt8] = []
    private var done = false
    private var context: ChannelHandlerContext?

    init(promise: EventLoopPromise<HTTPExchange.Answer>, maximumBytes: Int) {
        self.promise = promise
        self.maximumBytes = maximumBytes
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !done else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = Int(head.status.code)
            if let length = head.headers.first(name: "Content-Length").flatMap(Int.init), length > maximumBytes {
                fail(.tooLarge)
            }
        case .body(let buffer):
            guard buffer.readableBytes <= maximumBytes - body.count else { return fail(.tooLarge) }
            body.append(contentsOf: buffer.readableBytesView)
        case .end:
            done = true
            promise.succeed(HTTPExchange.Answer(status: status, body: body))
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(.closedEarly)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(error is HTTPParserError ? .broken("\(error)") : .unreachable(HTTPExchange.reason(error)))
    }

    /// Fails the exchange, once, and closes its connection.
    func fail(_ failure: ExchangeFailure) {
        guard !done else { return }
        done = true
        promise.fail(failure)
        context?.close(promise: nil)
    }
}
