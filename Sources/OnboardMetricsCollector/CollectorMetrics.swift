import CoreMetrics
import Foundation
import NIOConcurrencyHelpers

/// What the collector counts, through swift-metrics: the backend the process bootstraps sees it
/// (`funnel serve` bootstraps swift-prometheus and serves it at `GET /metrics`). The labels are
/// the Prometheus names served since the collector began; the recorder's own counters
/// (committed, duplicate, spooled, dropped) come from ``EventRecorder`` (`RecorderMetrics`).
package final class CollectorMetrics: Sendable {
    /// The metrics' names.
    package enum Label {
        package static let received = "onboardmetrics_events_received_total"
        package static let accepted = "onboardmetrics_events_accepted_total"
        package static let rejected = "onboardmetrics_events_rejected_total"
        package static let requests = "onboardmetrics_batch_requests_total"
        package static let rejectedByReason = "onboardmetrics_events_rejected_by_reason_total"
        package static let formatRequests = "onboardmetrics_format_requests_total"
        package static let duration = "onboardmetrics_batch_duration_seconds"
    }

    /// Upper bounds of the request-latency histogram's buckets, in seconds (the backend is told
    /// them: a swift-metrics `Timer` carries no buckets).
    package static let latencyBuckets: [Double] = [
        0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    private let factory: any MetricsFactory
    private let received: Counter
    private let accepted: Counter
    private let rejected: Counter
    private let duration: CoreMetrics.Timer
    /// The counters made as labels were first seen.
    private let made = NIOLockedValueBox(Made())

    private struct Made: Sendable {
        /// One counter per HTTP status seen.
        var requests: [Int: Counter] = [:]
        /// Rejected events by wire format and error code: the counter and how many so far (the
        /// collector's log tells the first hundred of each and then every thousandth).
        var rejections: [Rejection: (counter: Counter, count: Int)] = [:]
        /// Requests of the Segment and PostHog endpoints by format and status.
        var formatRequests: [FormatStatus: Counter] = [:]
    }

    private struct Rejection: Hashable, Sendable {
        var format: String
        var code: String
    }

    private struct FormatStatus: Hashable, Sendable {
        var format: String
        var status: Int
    }

    /// Metrics made by `factory` (default: the process's bootstrapped one).
    package init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
        received = Counter(label: Label.received, factory: factory)
        accepted = Counter(label: Label.accepted, factory: factory)
        rejected = Counter(label: Label.rejected, factory: factory)
        duration = CoreMetrics.Timer(label: Label.duration, dimensions: [], factory: factory)
    }

    /// Counts one answered `POST /v1/batch`: its status, how long it took, and its events.
    package func batch(status: Int, seconds: Double, received: Int = 0, accepted: Int = 0, rejected: Int = 0) {
        let factory = factory
        let counter = made.withLockedValue { made in
            if let existing = made.requests[status] { return existing }
            let counter = Counter(label: Label.requests, dimensions: [("status", String(status))], factory: factory)
            made.requests[status] = counter
            return counter
        }
        counter.increment()
        if received > 0 { self.received.increment(by: received) }
        if accepted > 0 { self.accepted.increment(by: accepted) }
        if rejected > 0 { self.rejected.increment(by: rejected) }
        duration.recordNanoseconds(Int64((max(0, seconds) * 1e9).rounded()))
    }

    /// Counts one rejected event of a wire format (`native`, `segment`, `posthog`) by its error code.
    /// - Returns: how many events of that format and code were rejected so far.
    @discardableResult
    package func rejected(format: String, code: String) -> Int {
        let key = Rejection(format: format, code: code)
        let factory = factory
        let (counter, count) = made.withLockedValue { made in
            var entry =
                made.rejections[key]
                ?? (
                    Counter(
                        label: Label.rejectedByReason, dimensions: [("format", format), ("code", code)],
                        factory: factory), 0
                )
            entry.count += 1
            made.rejections[key] = entry
            return entry
        }
        counter.increment()
        return count
    }

    /// Counts one answered request of a wire format's endpoints by status.
    package func request(format: String, status: Int) {
        let key = FormatStatus(format: format, status: status)
        let factory = factory
        let counter = made.withLockedValue { made in
            if let existing = made.formatRequests[key] { return existing }
            let counter = Counter(
                label: Label.formatRequests, dimensions: [("format", format), ("status", String(status))],
                factory: factory)
            made.formatRequests[key] = counter
            return counter
        }
        counter.increment()
    }
}
