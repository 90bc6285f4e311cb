import Foundation

/// What the collector counts, rendered in Prometheus's text exposition format (version 0.0.4)
/// for `GET /metrics`.
package final class CollectorMetrics: @unchecked Sendable {
    /// Upper bounds of the request-latency histogram's buckets, in seconds.
    package static let latencyBuckets: [Double] = [
        0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    // Guarded by `lock`.
    private let lock = NSLock()
    private var requests: [Int: Int] = [:]
    private var received = 0
    private var accepted = 0
    private var rejected = 0
    private var bucketCounts = [Int](repeating: 0, count: CollectorMetrics.latencyBuckets.count)
    private var latencyCount = 0
    private var latencySum = 0.0
    /// Rejected events by wire format and error code.
    private var rejections: [Rejection: Int] = [:]
    /// Requests of the Segment and PostHog endpoints by format and status.
    private var formatRequests: [FormatStatus: Int] = [:]

    private struct Rejection: Hashable, Comparable {
        var format: String
        var code: String
        static func < (a: Self, b: Self) -> Bool { (a.format, a.code) < (b.format, b.code) }
    }

    private struct FormatStatus: Hashable, Comparable {
        var format: String
        var status: Int
        static func < (a: Self, b: Self) -> Bool { (a.format, a.status) < (b.format, b.status) }
    }

    package init() {}

    /// Counts one answered `POST /v1/batch`: its status, how long it took, and its events.
    package func batch(status: Int, seconds: Double, received: Int = 0, accepted: Int = 0, rejected: Int = 0) {
        lock.withLock {
            requests[status, default: 0] += 1
            self.received += received
            self.accepted += accepted
            self.rejected += rejected
            for (index, bound) in Self.latencyBuckets.enumerated() where seconds <= bound { bucketCounts[index] += 1 }
            latencyCount += 1
            latencySum += seconds
        }
    }

    /// Counts one rejected event of a wire format (`native`, `segment`, `posthog`) by its error code.
    /// - Returns: how many events of that format and code were rejected so far.
    @discardableResult
    package func rejected(format: String, code: String) -> Int {
        lock.withLock {
            let key = Rejection(format: format, code: code)
            rejections[key, default: 0] += 1
            return rejections[key] ?? 0
        }
    }

    /// Counts one answered request of a wire format's endpoints by status.
    package func request(format: String, status: Int) {
        lock.withLock { formatRequests[FormatStatus(format: format, status: status), default: 0] += 1 }
    }

    /// The exposition text: the collector's own counts and the recorder's (`committed`, `spooled`,
    /// `duplicates`, `dropped`) at this moment.
    package func exposition(recorder: EventRecorder.Counters) -> String {
        lock.withLock {
            var text = ""
            func metric(_ name: String, _ type: String, _ help: String, _ samples: [(String, String)]) {
                text += "# HELP onboardmetrics_\(name) \(help)\n# TYPE onboardmetrics_\(name) \(type)\n"
                for (labels, value) in samples { text += "onboardmetrics_\(name)\(labels) \(value)\n" }
            }
            metric("events_received_total", "counter", "Events received in batches.", [("", "\(received)")])
            metric("events_accepted_total", "counter", "Events accepted for recording.", [("", "\(accepted)")])
            metric("events_rejected_total", "counter", "Events rejected as invalid.", [("", "\(rejected)")])
            metric(
                "events_rejected_by_reason_total", "counter", "Events rejected, by wire format and error code.",
                rejections.keys.sorted().map {
                    ("{format=\"\($0.format)\",code=\"\($0.code)\"}", "\(rejections[$0] ?? 0)")
                })
            metric(
                "format_requests_total", "counter",
                "Requests by wire format (native, segment, posthog) and HTTP status.",
                formatRequests.keys.sorted().map {
                    ("{format=\"\($0.format)\",status=\"\($0.status)\"}", "\(formatRequests[$0] ?? 0)")
                })
            metric(
                "events_committed_total", "counter", "Events newly stored in PostgreSQL.",
                [("", "\(recorder.committed)")])
            metric(
                "events_duplicate_total", "counter", "Events PostgreSQL already had (resends).",
                [("", "\(recorder.duplicates)")])
            metric(
                "events_spooled_total", "counter",
                "Events written to the on-disk spool while PostgreSQL was unreachable.",
                [("", "\(recorder.spooled)")])
            metric(
                "events_dropped_total", "counter", "Events dropped because the spool was full.",
                [("", "\(recorder.dropped)")])
            metric(
                "batch_requests_total", "counter", "POST /v1/batch requests by HTTP status.",
                requests.keys.sorted().map { ("{status=\"\($0)\"}", "\(requests[$0] ?? 0)") })
            var buckets = zip(Self.latencyBuckets, bucketCounts).map { bound, count in
                ("{le=\"\(Self.number(bound))\"}", "\(count)")
            }
            buckets.append(("{le=\"+Inf\"}", "\(latencyCount)"))
            metric(
                "batch_duration_seconds", "histogram", "Time from request to answer of POST /v1/batch.",
                buckets.map { ("_bucket" + $0.0, $0.1) } + [
                    ("_sum", Self.number(latencySum)), ("_count", "\(latencyCount)"),
                ])
            return text
        }
    }

    /// A number as Prometheus and messages print it: integers without a fraction.
    package static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
