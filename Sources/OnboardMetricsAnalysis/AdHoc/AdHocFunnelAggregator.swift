import Foundation
import OnboardMetricsReader

/// Counts units' reaches into an ``AdHocFunnelReport``: per session as they come, per user at the end.
public struct AdHocFunnelAggregator: Sendable {
    let funnel: AdHocFunnel
    var units = 0
    /// Units by depth reached (index 0: none).
    var byDepth: [Int]
    var toConvert: [DurationSamples]
    var fromStart: [DurationSamples]
    var users: [String: [AdHocEvent]] = [:]
    /// One buffer of compact events and one of chains serve every session.
    var compact: [AdHocEvent] = []
    var chains = AdHocFunnel.ChainBuffers()

    public init(funnel: AdHocFunnel) {
        self.funnel = funnel
        byDepth = Array(repeating: 0, count: funnel.steps.count + 1)
        toConvert = Array(repeating: DurationSamples(), count: funnel.steps.count)
        fromStart = toConvert
    }

    public mutating func add(_ session: RecordedSession) {
        switch funnel.unit {
        case .session:
            funnel.compactEvents(session.events, into: &compact)
            count(funnel.reach(&compact, buffers: &chains))
        case .user:
            hold(funnel.compactEvents(session.events), of: session.userID)
        }
    }

    /// Keeps a session's compact events with its user's, whose reach is found at the end.
    mutating func hold(_ events: [AdHocEvent], of userID: String) {
        // Take the user's list out while it grows, so it is not copied.
        var held = users.removeValue(forKey: userID) ?? []
        held.append(contentsOf: events)
        users[userID] = held
    }

    /// Counts one unit's reach: its depth and the step-to-step durations of its chain.
    mutating func count(_ reach: AdHocFunnel.Reach) {
        units += 1
        byDepth[reach.depth] += 1
        for step in reach.times.indices.dropFirst() {
            toConvert[step].append(microseconds: reach.times[step] - reach.times[step - 1])
            fromStart[step].append(microseconds: reach.times[step] - reach.times[0])
        }
    }

    public mutating func report() -> AdHocFunnelReport {
        for userID in users.keys.sorted() {
            var events = users[userID] ?? []
            count(funnel.reach(&events))
        }
        users.removeAll()
        var rows: [AdHocFunnelReport.Row] = []
        var atLeast = 0
        var counts = Array(repeating: 0, count: funnel.steps.count)
        for depth in stride(from: funnel.steps.count, through: 1, by: -1) {
            atLeast += byDepth[depth]
            counts[depth - 1] = atLeast
        }
        let summaries = DurationSummary.summaries(toConvert + fromStart)
        for (index, step) in funnel.steps.enumerated() {
            let label = funnel.order == .any ? "any \(index + 1) of \(funnel.steps.count)" : step
            rows.append(
                AdHocFunnelReport.Row(
                    step: label, count: counts[index],
                    conversionFromPrevious: index == 0 ? nil : Self.ratio(counts[index], counts[index - 1]),
                    conversionFromStart: Self.ratio(counts[index], counts[0]),
                    timeToConvert: summaries[index], timeFromStart: summaries[funnel.steps.count + index]))
        }
        return AdHocFunnelReport(
            steps: funnel.steps, order: funnel.order, unit: funnel.unit, windowSeconds: funnel.window, units: units,
            rows: rows)
    }

    private static func ratio(_ part: Int, _ whole: Int) -> Double? {
        whole == 0 ? nil : Double(part) / Double(whole)
    }
}
