import Foundation
import Prometheus
import Synchronization

/// What `/metrics` reports (Prometheus text): requests by route and status, their latency, the open event streams,
/// and the index — its documents and how far it is behind the store.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let documents: Gauge
    private let behind: Gauge
    private let streams: Gauge
    private let events: Counter
    /// Each route's and status's counter and each route's histogram, as the registry made them: looking them up in the
    /// registry builds their descriptor and labels and takes its lock, at every request.
    private let requestMetrics = Mutex<(counters: [String: Counter], histograms: [String: DurationHistogram])>(
        ([:], [:]))

    /// Latency buckets: the upper bounds of the request-duration histogram's bins, exported in seconds.
    static let buckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
        .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
        .seconds(1), .seconds(5),
    ]

    init() {
        documents = registry.makeGauge(descriptor: Self.name("index_documents", help: "Documents in the index."))
        behind = registry.makeGauge(
            descriptor: Self.name(
                "index_changes_behind", help: "Changes logged in the store that the index has not applied."))
        streams = registry.makeGauge(descriptor: Self.name("event_streams", help: "Subscription event streams open."))
        events = registry.makeCounter(
            descriptor: Self.name("events_sent", unit: "total", help: "Subscription events sent to streams."))
    }

    /// Counts a request to `route` (its pattern, e.g. `/v1/items/{uuid}`) answered with `status` after `elapsed`.
    func record(route: String, status: Int, elapsed: Duration) {
        let (counter, histogram) = requestMetrics.withLock { metrics in
            let key = "\(status) \(route)"
            let counter: Counter
            if let made = metrics.counters[key] {
                counter = made
            } else {
                counter = registry.makeCounter(
                    descriptor: Self.name(
                        "http_requests", unit: "total", help: "HTTP requests answered, by route and status."),
                    labels: [("route", route), ("status", String(status))])
                metrics.counters[key] = counter
            }
            let histogram: DurationHistogram
            if let made = metrics.histograms[route] {
                histogram = made
            } else {
                histogram = registry.makeDurationHistogram(
                    descriptor: Self.name(
                        "http_request_duration", unit: "seconds",
                        help: "Time to answer an HTTP request (to its first byte for event streams), by route."),
                    labels: [("route", route)], buckets: Self.buckets)
                metrics.histograms[route] = histogram
            }
            return (counter, histogram)
        }
        counter.increment()
        histogram.record(elapsed)
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
            descriptor: Self.name(
                "replica_seconds_since_copy",
                help: "Seconds since a remote store's replica last copied its primary's index (-1: never)."),
            labels: labels
        ).set(secondsSinceCopy ?? -1)
        registry.makeGauge(
            descriptor: Self.name(
                "replica_changes_behind",
                help: "Changes a remote store's primary had that its replica lacked after the last copy (-1: unknown)."),
            labels: labels
        ).set(Double(changesBehind ?? -1))
        registry.makeGauge(
            descriptor: Self.name("replica_failing", help: "1 when a remote store's replica's last copy failed."),
            labels: labels
        ).set(failing ? 1.0 : 0.0)
    }

    func streamOpened() { streams.increment() }
    func streamClosed() { streams.decrement() }
    func eventsSent(_ count: Int) { events.increment(by: Int64(count)) }

    var text: String { registry.emitToString() }

    /// `spotlite_<name>[_<unit>]`, with its help line.
    static func name(_ name: String, unit: String = "", help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "spotlite", metricName: name, unitName: unit, helpText: help)
    }
}
