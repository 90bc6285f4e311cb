import CoreMetrics
import Foundation
import Prometheus

/// The metrics backend of `funnel serve`: swift-prometheus behind swift-metrics, so what the
/// collector and the recorder count appears at `GET /metrics`. It adds each known metric's
/// `# HELP` line and the request-latency buckets, which swift-metrics' API does not carry.
package struct ServeMetrics: MetricsFactory {
    package let registry: PrometheusCollectorRegistry
    private let prometheus: PrometheusMetricsFactory

    /// Help lines of the metrics `funnel serve` has, by name.
    static let help: [String: String] = [
        "onboardmetrics_events_received_total": "Events received in batches.",
        "onboardmetrics_events_accepted_total": "Events accepted for recording.",
        "onboardmetrics_events_rejected_total": "Events rejected as invalid.",
        "onboardmetrics_events_rejected_by_reason_total": "Events rejected, by wire format and error code.",
        "onboardmetrics_format_requests_total": "Requests by wire format (native, segment, posthog) and HTTP status.",
        "onboardmetrics_events_committed_total": "Events newly stored in PostgreSQL.",
        "onboardmetrics_events_duplicate_total": "Events PostgreSQL already had (resends).",
        "onboardmetrics_events_spooled_total": "Events written to the on-disk spool while PostgreSQL was unreachable.",
        "onboardmetrics_events_dropped_total": "Events dropped because the spool was full.",
        "onboardmetrics_batch_requests_total": "POST /v1/batch requests by HTTP status.",
        "onboardmetrics_batch_duration_seconds": "Time from request to answer of POST /v1/batch.",
        "onboardmetrics_recorder_recorded_total": "Events the recorder accepted.",
        "onboardmetrics_recorder_rejected_total": "Events the recorder refused (invalid, or refused by PostgreSQL).",
        "onboardmetrics_recorder_retries_total": "Failed attempts to reach or write to PostgreSQL that were retried.",
        "onboardmetrics_recorder_queued_events": "Events waiting in the recorder's memory queue.",
        "onboardmetrics_recorder_write_duration_seconds": "Time of one binary COPY of a batch into PostgreSQL.",
    ]

    package init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        var prometheus = PrometheusMetricsFactory(registry: registry)
        prometheus.durationHistogramBuckets[CollectorMetrics.Label.duration] = CollectorMetrics.latencyBuckets.map {
            .nanoseconds(Int64(($0 * 1e9).rounded()))
        }
        self.prometheus = prometheus
    }

    /// Makes a new one the process's metrics backend (once, before the collector and recorder exist).
    package static func bootstrap() -> ServeMetrics {
        let factory = ServeMetrics()
        MetricsSystem.bootstrap(factory)
        return factory
    }

    /// A full metric name with its help line (the unit is part of our names already).
    private static func descriptor(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }

    package func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        guard let help = Self.help[label] else { return prometheus.makeCounter(label: label, dimensions: dimensions) }
        return registry.makeCounter(descriptor: Self.descriptor(label, help), labels: dimensions)
    }

    package func makeFloatingPointCounter(label: String, dimensions: [(String, String)])
        -> any FloatingPointCounterHandler
    {
        prometheus.makeFloatingPointCounter(label: label, dimensions: dimensions)
    }

    package func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard !aggregate, let help = Self.help[label] else {
            return prometheus.makeRecorder(label: label, dimensions: dimensions, aggregate: aggregate)
        }
        return registry.makeGauge(descriptor: Self.descriptor(label, help), labels: dimensions)
    }

    package func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        prometheus.makeMeter(label: label, dimensions: dimensions)
    }

    package func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        guard let help = Self.help[label] else { return prometheus.makeTimer(label: label, dimensions: dimensions) }
        let buckets = prometheus.durationHistogramBuckets[label] ?? prometheus.defaultDurationHistogramBuckets
        return registry.makeDurationHistogram(
            descriptor: Self.descriptor(label, help), labels: dimensions, buckets: buckets)
    }

    package func destroyCounter(_ handler: any CounterHandler) { prometheus.destroyCounter(handler) }
    package func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        prometheus.destroyFloatingPointCounter(handler)
    }
    package func destroyRecorder(_ handler: any RecorderHandler) { prometheus.destroyRecorder(handler) }
    package func destroyMeter(_ handler: any MeterHandler) { prometheus.destroyMeter(handler) }
    package func destroyTimer(_ handler: any TimerHandler) { prometheus.destroyTimer(handler) }
}
