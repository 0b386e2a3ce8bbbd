import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes a connection that keeps the server waiting: one that sends no whole request head within
/// ``ServerOptions/headerTimeout`` seconds of opening or of its last response (an idle keep-alive connection, or
/// a "slowloris" sending its headers a byte at a time), or whose request body does not arrive whole within
/// ``ServerOptions/bodyTimeout`` seconds of its head. A response being written (a search, an event stream) has no
/// deadline here: searches have their own time limit, and streams end when their client leaves.
///
/// One per connection, in the pipeline after the HTTP decoder, so it sees request heads, bodies and ends, and
/// response ends. Everything runs on the connection's event loop.
final class ConnectionDeadlines: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let headerTimeout: TimeAmount
    private let bodyTimeout: TimeAmount
    /// Requests whose head arrived, whose end arrived, and whose response ended.
    private var heads = 0
    private var ends = 0
    private var answered = 0
    private var timer: Scheduled<Void>?

    init(headerTimeout: Double, bodyTimeout: Double) {
        self.headerTimeout = .nanoseconds(Int64(headerTimeout * 1e9))
        self.bodyTimeout = .nanoseconds(Int64(bodyTimeout * 1e9))
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            heads += 1
            arm(context)
        case .body: break  // a body's deadline runs from its head, however it trickles in
        case .end:
            ends += 1
            arm(context)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let response):
            streaming = response.headerFields[.contentType]?.hasPrefix("text/event-stream") == true
        case .body: break
        case .end:
            streaming = false
            answered += 1
            arm(context)
        }
        context.write(data, promise: promise)
    }

    /// Whether the response being written is an event stream (it ends when its client leaves).
    private var streaming = false

    /// The client closed its side (the server allows half-closed connections): an event stream's client has left,
    /// so the connection closes, and the stream's slot is free at once rather than at its next failed write; an
    /// idle connection has nothing more to send. A request being answered is answered.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .inputClosed = event as? ChannelEvent, streaming || (answered >= heads && heads == ends) {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// What the connection waits for now.
    private enum Wait: Equatable {
        /// The rest of a request's body, from its head.
        case body
        /// The next request's head: every request read has been answered.
        case head
        /// Nothing: a response is being written.
        case response
    }

    private var waiting: Wait?

    /// Sets the deadline for what the connection waits for, when that changed: a body from its head, the next head
    /// from the last response, none while a response is written.
    private func arm(_ context: ChannelHandlerContext) {
        let now: Wait = heads > ends ? .body : answered >= heads ? .head : .response
        guard now != waiting else { return }
        waiting = now
        timer?.cancel()
        timer = nil
        let timeout: TimeAmount
        switch now {
        case .body: timeout = bodyTimeout
        case .head: timeout = headerTimeout
        case .response: return
        }
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    }
}
