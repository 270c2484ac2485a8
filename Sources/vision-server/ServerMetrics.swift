import Foundation
import Prometheus

/// The service's Prometheus metrics, served at `GET /metrics` in the text exposition format:
/// - `litevision_http_request_duration_seconds{route}`: a histogram of request latency (body read, queue wait,
///   decoding, inference, encoding);
/// - `litevision_http_requests_total{route,status}`;
/// - `litevision_http_requests_in_flight`: requests being answered now;
/// - `litevision_http_errors_total{kind}`: error responses by their `error.kind`;
/// - `litevision_workers_busy` and `litevision_queue_waiting`, set when /metrics is read.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let inFlight: Gauge
    let workersBusy: Gauge
    let queueWaiting: Gauge
    static let buckets: [Duration] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10].map { .nanoseconds(Int64($0 * 1e9)) }

    init() {
        inFlight = registry.makeGauge(descriptor: Self.descriptor("http_requests_in_flight", "", "Requests being answered"))
        workersBusy = registry.makeGauge(descriptor: Self.descriptor("workers_busy", "", "Inference workers lent to a request"))
        queueWaiting = registry.makeGauge(descriptor: Self.descriptor("queue_waiting", "", "Requests waiting for a worker"))
    }

    func started() { inFlight.increment() }

    func finished(route: String, status: Int, errorKind: String?, duration: Duration) {
        inFlight.decrement()
        registry.makeDurationHistogram(
            descriptor: Self.descriptor("http_request_duration", "seconds", "Request latency by route"),
            labels: [("route", route)], buckets: Self.buckets
        ).record(duration)
        registry.makeCounter(
            descriptor: Self.descriptor("http_requests", "total", "Requests answered by route and status"),
            labels: [("route", route), ("status", String(status))]
        ).increment()
        if let errorKind {
            registry.makeCounter(
                descriptor: Self.descriptor("http_errors", "total", "Error responses by kind"),
                labels: [("kind", errorKind)]
            ).increment()
        }
    }

    private static func descriptor(_ name: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "litevision", metricName: name, unitName: unit, helpText: help)
    }

    func exposition() -> [UInt8] { registry.emitToBuffer() }
}
