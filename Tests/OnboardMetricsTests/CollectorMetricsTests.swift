import Foundation
import MetricsTestKit
import Testing

@testable import OnboardMetricsCollector
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// What the collector counts, seen through swift-metrics' test backend: counters by status and
/// for events, and the request latency as a timer (Prometheus's buckets are the backend's job;
/// ServeCommandTests scrapes them from `funnel serve`).
@Suite struct CollectorMetricsTests {
    @Test func countsRequestsEventsAndLatency() throws {
        let backend = TestMetrics()
        let metrics = CollectorMetrics(factory: backend)
        metrics.batch(status: 200, seconds: 0.004, received: 10, accepted: 9, rejected: 1)
        metrics.batch(status: 200, seconds: 0.3, received: 5, accepted: 5)
        metrics.batch(status: 401, seconds: 0.0001)
        #expect(backend.counterTotal(label: CollectorMetrics.Label.received) == 15)
        #expect(backend.counterTotal(label: CollectorMetrics.Label.accepted) == 14)
        #expect(backend.counterTotal(label: CollectorMetrics.Label.rejected) == 1)
        #expect(backend.counterTotal(label: CollectorMetrics.Label.requests, dimensions: [("status", "200")]) == 2)
        #expect(backend.counterTotal(label: CollectorMetrics.Label.requests, dimensions: [("status", "401")]) == 1)
        let timer = try backend.expectTimer(CollectorMetrics.Label.duration)
        #expect(timer.values == [4_000_000, 300_000_000, 100_000])
    }

    @Test func theRecorderPublishesOnlyWhatGrew() throws {
        let backend = TestMetrics()
        let metrics = RecorderMetrics(factory: backend)
        var counts = EventRecorder.Counters()
        var published = EventRecorder.Counters()
        counts.committed = 12
        counts.duplicates = 2
        metrics.publish(counts, queued: 7, since: &published)
        counts.committed = 20
        counts.spooled = 3
        metrics.publish(counts, queued: 0, since: &published)
        #expect(published == counts)
        #expect(backend.counterTotal(label: RecorderMetrics.Label.committed) == 20)
        #expect(backend.counterTotal(label: RecorderMetrics.Label.duplicates) == 2)
        #expect(backend.counterTotal(label: RecorderMetrics.Label.spooled) == 3)
        #expect(backend.counterTotal(label: RecorderMetrics.Label.dropped) == 0)
        #expect(try backend.expectGauge(RecorderMetrics.Label.queued).values == [7, 0])
    }

    @Test func numbersPrintWithoutNeedlessFractions() {
        #expect(JSONValue.text(500) == "500")
        #expect(JSONValue.text(0.5) == "0.5")
    }
}
