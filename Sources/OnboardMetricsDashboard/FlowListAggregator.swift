import OnboardMetricsAnalysis
import OnboardMetricsReader

/// Several flow funnels (and, optionally, their daily trends) filled by one read: every session
/// goes to each part (a funnel or trend counts only its own flow's sessions). Mergeable part by
/// part, so parallel and sharded reads stay exact.
struct FlowListAggregator: SessionAggregator {
    struct Report: Sendable {
        var funnels: [FunnelReport]
        var trends: [TrendReport]
    }

    var parts: [FunnelAggregator]
    var trends: [TrendAggregator] = []

    mutating func add(_ session: RecordedSession) throws {
        for index in parts.indices { parts[index].add(session) }
        for index in trends.indices { trends[index].add(session) }
    }

    mutating func merge(_ other: FlowListAggregator) {
        for index in parts.indices where index < other.parts.count { parts[index].merge(other.parts[index]) }
        for index in trends.indices where index < other.trends.count { trends[index].merge(other.trends[index]) }
    }

    mutating func report() throws -> Report {
        var funnels: [FunnelReport] = []
        for index in parts.indices { funnels.append(parts[index].report()) }
        return Report(funnels: funnels, trends: trends.map { $0.report() })
    }
}
