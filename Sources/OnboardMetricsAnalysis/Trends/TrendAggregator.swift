import Foundation
import OnboardMetricsReader
import OnboardMetricsSDK
import OnboardMetricsStatistics

/// Counts replayed sessions into a ``TrendReport``: per (breakdown value, period) the session
/// totals and per step the eligible and viewed sessions; nothing per session is kept.
public struct TrendAggregator: Sendable {
    struct Counts {
        var started = 0
        var completed = 0
        var dropped = 0
        var inProgress = 0
        var eligible: [Int]
        var viewed: [Int]

        init(stepCount: Int) {
            eligible = Array(repeating: 0, count: stepCount)
            viewed = eligible
        }
    }

    struct Key: Hashable {
        var breakdown: String
        var startDay: Int64
    }

    let flow: FlowDefinition
    let options: TrendOptions
    let replay: FunnelReplay
    let reportEnd: Date
    var selection: SessionSelection
    var counts: [Key: Counts] = [:]

    public init(flow: FlowDefinition, options: TrendOptions, now: Date) {
        self.flow = flow
        self.options = options
        let end = options.funnel.reportEnd ?? options.funnel.until ?? now
        reportEnd = end
        replay = FunnelReplay(flow: flow, options: options.funnel, reportEnd: RecordedEvent.microseconds(end))
        selection = SessionSelection(flowID: flow.id, since: options.funnel.since, until: options.funnel.until)
    }

    public mutating func add(_ session: RecordedSession) {
        guard selection.accepts(session) else { return }
        let state = replay.replay(session)
        let key = Key(breakdown: state.breakdown ?? "", startDay: options.interval.periodStartDay(state.start))
        var row = counts[key] ?? Counts(stepCount: flow.steps.count)
        counts[key] = nil
        row.started += 1
        switch state.status {
        case .completed: row.completed += 1
        case .dropped: row.dropped += 1
        case .inProgress: row.inProgress += 1
        }
        // As in the funnel report, in-progress sessions have not had their chance at later steps.
        if state.status != .inProgress {
            for index in flow.steps.indices where state.eligible[index] {
                row.eligible[index] += 1
                if state.viewed[index] { row.viewed[index] += 1 }
            }
        }
        counts[key] = row
    }

    public func report() -> TrendReport {
        let interval = options.interval
        let breakdowns = Set(counts.keys.map(\.breakdown)).sorted()
        let series = breakdowns.map { breakdown -> TrendReport.Series in
            let days = counts.keys.filter { $0.breakdown == breakdown }.map(\.startDay)
            var periods: [TrendReport.Period] = []
            if let first = days.min(), let last = days.max() {
                var day = first
                while day <= last {
                    let next = interval.nextPeriodStartDay(day)
                    let row = counts[Key(breakdown: breakdown, startDay: day)] ?? Counts(stepCount: flow.steps.count)
                    periods.append(period(row, startDay: day, nextDay: next))
                    day = next
                }
            }
            return TrendReport.Series(breakdown: options.funnel.breakdown == nil ? nil : breakdown, periods: periods)
        }
        return TrendReport(
            flowID: flow.id, flowVersion: flow.version, interval: interval, windowSeconds: options.funnel.window,
            inactivitySeconds: options.funnel.inactivity, since: options.funnel.since, until: options.funnel.until,
            reportEnd: reportEnd, breakdownBy: options.funnel.breakdown, level: options.level,
            inProgressThreshold: options.inProgressThreshold,
            provisionalThreshold: min(options.provisionalThreshold, options.inProgressThreshold),
            steps: flow.steps.map(\.id), series: series,
            otherFlowSessions: selection.otherFlowSessions)
    }

    private func period(_ row: Counts, startDay: Int64, nextDay: Int64) -> TrendReport.Period {
        let settled = row.started - row.inProgress
        let share = row.started > 0 ? Double(row.inProgress) / Double(row.started) : nil
        return TrendReport.Period(
            start: TrendInterval.date(day: startDay), end: TrendInterval.date(day: nextDay),
            label: options.interval.label(startDay: startDay), started: row.started, completed: row.completed,
            dropped: row.dropped, inProgress: row.inProgress,
            completionRate: settled > 0 ? Double(row.completed) / Double(settled) : nil,
            interval: ConfidenceInterval.wilson(successes: row.completed, trials: settled, level: options.level),
            inProgressShare: share, mostlyInProgress: (share ?? 0) > options.inProgressThreshold,
            provisional: (share ?? 0) > options.inProgressThreshold
                || (row.inProgress > 0 && (share ?? 0) >= options.provisionalThreshold),
            steps: flow.steps.enumerated().map { index, step in
                TrendReport.StepPoint(
                    step: step.id, eligible: row.eligible[index], viewed: row.viewed[index],
                    conversion: row.eligible[index] > 0
                        ? Double(row.viewed[index]) / Double(row.eligible[index]) : nil)
            })
    }
}
