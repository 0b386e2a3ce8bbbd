import Foundation
import HTTPTypes
import Hummingbird
import SpotliteJSON
import TrackerStore

/// `GET /v1/subscriptions/{id}/events`: a subscription's events as Server-Sent Events, read from the store (where
/// the watcher records them, whoever wrote the change) and sent in order, each with its id (`position.ordinal`).
///
/// A client that reconnects with `Last-Event-ID` (or `?after=`) gets every event after it, none twice; if that
/// event was pruned with the change log, it first gets a `reset` event (read the results again). Without either,
/// the stream starts with what happens next. An idle stream sends a comment every ``ServerOptions/heartbeatInterval``
/// seconds; the server's shutdown ends every stream.
final class EventStreams: Sendable {
    let backend: Backend
    let hub: EventHub
    let metrics: ServerMetrics
    let options: ServerOptions
    private let open = OpenCount()

    init(backend: Backend, hub: EventHub, metrics: ServerMetrics, options: ServerOptions) {
        self.backend = backend
        self.hub = hub
        self.metrics = metrics
        self.options = options
    }

    func response(for id: String, request: Request, context: ServerContext) async throws -> Response {
        let store = backend.writer.store
        guard let subscription = try await backend.run({ try store.read { try $0.subscription(id: id) } }) else {
            throw Problem(.notFound, "no subscription \(id); make one with POST /v1/subscriptions", code: .notFound)
        }
        let resume = try Self.lastEventID.flatMap { request.headers[$0] } ?? FormQuery(request.uri.query)["after"]
        let start: (position: Int64, ordinal: Int)
        var reset = false
        if let resume {
            guard let parsed = SubscriptionEvent.parse(resumingAfter: resume) else {
                throw Problem(
                    .badRequest,
                    "'\(resume.prefix(40))' is not an event id (position.ordinal, e.g. 42.0) or a position",
                    code: .usage)
            }
            start = parsed
            // Pruned with the change log, or ahead of every event this subscription has (a store restored from an
            // older copy): either way the client's results are not these; it reads them again.
            reset = parsed.position < subscription.eventsPrunedThrough || parsed.position > subscription.cursor
        } else {
            start = (subscription.cursor, Int.max)
        }
        guard open.enter(limit: options.maximumEventStreams) else {
            throw Problem.tooMany(
                "\(options.maximumEventStreams) event streams are open, the most this server keeps; "
                    + "close one, or try again later")
        }
        metrics.streamOpened()
        let storeID = backend.storeID
        let (hub, backend, metrics, heartbeat, open) = (hub, backend, metrics, options.heartbeatInterval, open)
        let resetFirst = reset
        // The slot is freed when the client leaves, not at the next heartbeat's failed write: its connection's
        // closing interrupts the stream's wait.
        let channel = context.channel
        let logger = context.logger
        let key = UUID()
        channel.closeFuture.whenComplete { _ in hub.interrupt(key, of: id) }
        let body = ResponseBody { writer in
            var start = start
            defer {
                hub.forget(key)
                open.leave()
                metrics.streamClosed()
            }
            do {
                // The stream tells the client how long to wait before reconnecting.
                try await writer.write(ByteBuffer(string: "retry: 1000\n\n"))
                if resetFirst {
                    let current = try await backend.run { try store.read { try $0.subscription(id: id) } }
                    let position = current?.cursor ?? start.position
                    let event = SubscriptionEvent(position: position, ordinal: Int.max, kind: .reset, member: nil)
                    try await writer.write(ByteBuffer(string: Self.frame(event, subscriptionID: id, storeID: storeID)))
                    start = (position, Int.max)
                }
                while !hub.isClosed && !Task.isCancelled && channel.isActive {
                    let version = hub.version(of: id)
                    let (from, ordinal) = start
                    let events = try await backend.run {
                        try store.read { try $0.subscriptionEvents(id: id, after: from, ordinal: ordinal, limit: 500) }
                    }
                    if let last = events.last {
                        var text = ""
                        for event in events { text += Self.frame(event, subscriptionID: id, storeID: storeID) }
                        try await writer.write(ByteBuffer(string: text))
                        metrics.eventsSent(events.count)
                        start = (last.position, last.ordinal)
                        continue
                    }
                    // Gone (deleted while streaming): the stream ends.
                    if try await backend.run({ try store.read { try $0.subscription(id: id) } }) == nil { break }
                    guard channel.isActive else { break }
                    await hub.wait(for: id, version: version, timeout: heartbeat, key: key)
                    if hub.version(of: id) == version && !hub.isClosed && channel.isActive {
                        try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                    }
                }
            } catch  where channel.isActive {
                // Not its client leaving: a store read that failed. The client reconnects and resumes after its last
                // event; the log says why it had to.
                logger.warning("the event stream of subscription \(id) ended: \(error)")
                throw error
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
    }

    static let lastEventID = HTTPField.Name("Last-Event-ID")

    /// One event as Server-Sent Events text: `id`, `event` (its type) and `data` (its JSON).
    static func frame(_ event: SubscriptionEvent, subscriptionID: String, storeID: String) -> String {
        let data = SubscriptionJSON.event(event, subscriptionID: subscriptionID, storeID: storeID).text
        return "id: \(event.id)\nevent: \(event.kind.rawValue)\ndata: \(data)\n\n"
    }
}

/// A count of things open at once, bounded.
final class OpenCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func enter(limit: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard count < limit else { return false }
        count += 1
        return true
    }

    func leave() {
        lock.lock()
        count -= 1
        lock.unlock()
    }

    var current: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
