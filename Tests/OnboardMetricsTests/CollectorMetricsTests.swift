import Foundation
import Testing

@testable import OnboardMetrics
@testable import OnboardMetricsSDK

/// `GET /metrics` in Prometheus's text format: counters and a cumulative latency histogram.
@Suite struct CollectorMetricsTests {
    @Test func exposition() {
        let metrics = CollectorMetrics()
        metrics.batch(status: 200, seconds: 0.004, received: 10, accepted: 9, rejected: 1)
        metrics.batch(status: 200, seconds: 0.3, received: 5, accepted: 5)
        metrics.batch(status: 401, seconds: 0.0001)
        var recorder = EventRecorder.Counters()
        recorder.committed = 12
        recorder.duplicates = 2
        let text = metrics.exposition(recorder: recorder)
        let samples = Dictionary(
            text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line -> (String, String) in
                let parts = line.split(separator: " ")
                return (String(parts[0]), String(parts[1]))
            }, uniquingKeysWith: { first, _ in first })
        #expect(samples["onboardmetrics_events_received_total"] == "15")
        #expect(samples["onboardmetrics_events_accepted_total"] == "14")
        #expect(samples["onboardmetrics_events_rejected_total"] == "1")
        #expect(samples["onboardmetrics_events_committed_total"] == "12")
        #expect(samples["onboardmetrics_events_duplicate_total"] == "2")
        #expect(samples[#"onboardmetrics_batch_requests_total{status="200"}"#] == "2")
        #expect(samples[#"onboardmetrics_batch_requests_total{status="401"}"#] == "1")
        // Cumulative buckets: 0.0001 and 0.004 are ≤ 0.005; all three are ≤ 0.5 and +Inf.
        #expect(samples[#"onboardmetrics_batch_duration_seconds_bucket{le="0.001"}"#] == "1")
        #expect(samples[#"onboardmetrics_batch_duration_seconds_bucket{le="0.005"}"#] == "2")
        #expect(samples[#"onboardmetrics_batch_duration_seconds_bucket{le="0.25"}"#] == "2")
        #expect(samples[#"onboardmetrics_batch_duration_seconds_bucket{le="0.5"}"#] == "3")
        #expect(samples[#"onboardmetrics_batch_duration_seconds_bucket{le="+Inf"}"#] == "3")
        #expect(samples["onboardmetrics_batch_duration_seconds_count"] == "3")
        #expect(text.contains("# TYPE onboardmetrics_batch_duration_seconds histogram\n"))
        #expect(text.contains("# TYPE onboardmetrics_events_received_total counter\n"))
    }
}
