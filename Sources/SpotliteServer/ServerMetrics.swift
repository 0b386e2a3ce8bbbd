import Foundation
import Prometheus

/// What `/metrics` reports (Prometheus text): requests by route and status, their latency, the open event streams,
/// and the index — its documents and how far it is behind the store.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let documents: Gauge
    private let behind: Gauge
    private let streams: Gauge
    private let events: Counter

    /// Latency buckets, in seconds: 0.5 ms to 5 s.
    static let buckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
        .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
        .seconds(1), .seconds(5),
    ]

    init() {
        documents = registry.makeGauge(name: "spotlite_index_documents", help: "Documents in the index.")
        behind = registry.makeGauge(
            name: "spotlite_index_changes_behind", help: "Changes logged in the store that the index has not applied.")
        streams = registry.makeGauge(name: "spotlite_event_streams", help: "Subscription event streams open.")
        events = registry.makeCounter(name: "spotlite_events_sent_total", help: "Subscription events sent to streams.")
    }

    /// Counts a request to `route` (its pattern, e.g. `/v1/items/{uuid}`) answered with `status` after `elapsed`.
    func record(route: String, status: Int, elapsed: Duration) {
        registry.makeCounter(
            name: "spotlite_http_requests_total", labels: [("route", route), ("status", String(status))],
            help: "HTTP requests answered, by route and status."
        ).increment()
        registry.makeDurationHistogram(
            name: "spotlite_http_request_duration_seconds", labels: [("route", route)], buckets: Self.buckets,
            help: "Time to answer an HTTP request (to its first byte for event streams), by route."
        ).record(elapsed)
    }

    func setIndex(documents count: Int?, behind changes: Int?) {
        documents.set(Double(count ?? 0))
        behind.set(Double(changes ?? 0))
    }

    /// A remote store's replica: seconds since its last copy, changes it lacked after it, whether the last attempt
    /// failed.
    func setReplica(store: String, secondsSinceCopy: Double?, changesBehind: Int64?, failing: Bool) {
        let labels = [("store", store)]
        registry.makeGauge(
            name: "spotlite_replica_seconds_since_copy", labels: labels,
            help: "Seconds since a remote store's replica last copied its primary's index (-1: never)."
        ).set(secondsSinceCopy ?? -1)
        registry.makeGauge(
            name: "spotlite_replica_changes_behind", labels: labels,
            help: "Changes a remote store's primary had that its replica lacked after the last copy (-1: unknown)."
        ).set(Double(changesBehind ?? -1))
        registry.makeGauge(
            name: "spotlite_replica_failing", labels: labels,
            help: "1 when a remote store's replica's last copy failed."
        ).set(failing ? 1.0 : 0.0)
    }

    func streamOpened() { streams.increment() }
    func streamClosed() { streams.decrement() }
    func eventsSent(_ count: Int) { events.increment(by: Int64(count)) }

    var text: String { registry.emitToString() }
}
