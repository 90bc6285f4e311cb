import OnboardMetricsAnalysis
import OnboardMetricsReader

/// Several flow funnels filled by one read: every session goes to each part (a funnel counts only
/// its own flow's sessions). Mergeable part by part, so parallel and sharded reads stay exact.
struct FlowListAggregator: SessionAggregator {
    var parts: [FunnelAggregator]

    mutating func add(_ session: RecordedSession) throws {
        for index in parts.indices { parts[index].add(session) }
    }

    mutating func merge(_ other: FlowListAggregator) {
        for index in parts.indices where index < other.parts.count { parts[index].merge(other.parts[index]) }
    }

    mutating func report() throws -> [FunnelReport] {
        var reports: [FunnelReport] = []
        for index in parts.indices { reports.append(parts[index].report()) }
        return reports
    }
}
