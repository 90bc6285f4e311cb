import Foundation
import OnboardMetricsReader
import OnboardMetricsSDK

/// Counts replayed sessions into a ``FunnelReport``, one group per breakdown value. Per session
/// it keeps counters and one duration per step; per user it keeps each user's merged state.
public struct FunnelAggregator: Sendable {
    struct GroupCounts {
        var started = 0
        var completed = 0
        var dropped = 0
        var inProgress = 0
        var droppedBeforeFirstStep = 0
        var eligible: [Int]
        var viewed: [Int]
        var completedStep: [Int]
        var skipped: [Int]
        var droppedHere: [Int]
        var inProgressHere: [Int]
        var previousReached: [Int]
        var viewedAfterPrevious: [Int]
        var onStep: [DurationSamples]
        var fromStart: [DurationSamples]

        init(stepCount: Int) {
            let zeros = Array(repeating: 0, count: stepCount)
            eligible = zeros
            viewed = zeros
            completedStep = zeros
            skipped = zeros
            droppedHere = zeros
            inProgressHere = zeros
            previousReached = zeros
            viewedAfterPrevious = zeros
            onStep = Array(repeating: DurationSamples(), count: stepCount)
            fromStart = onStep
        }
    }

    let flow: FlowDefinition
    let options: FunnelOptions
    let replay: FunnelReplay
    let reportEnd: Date
    var selection: SessionSelection
    var groups: [String: GroupCounts] = [:]
    var users: PackedUnitStore<FunnelUnitState>
    /// Reused by each session's replay.
    var scratch: FunnelUnitState
    /// Reused to unpack a user's state (unit user).
    var merged: FunnelUnitState
    var viewTimes: [Int64?]
    var memo = EligibilityMemo()

    public init(flow: FlowDefinition, options: FunnelOptions, now: Date) {
        self.flow = flow
        self.options = options
        let end = options.reportEnd ?? options.until ?? now
        self.reportEnd = end
        self.replay = FunnelReplay(flow: flow, options: options, reportEnd: RecordedEvent.microseconds(end))
        self.selection = SessionSelection(flowID: flow.id, since: options.since, until: options.until)
        self.scratch = FunnelUnitState(stepCount: flow.steps.count)
        self.merged = scratch
        self.users = PackedUnitStore<FunnelUnitState>(stepCount: flow.steps.count)
        self.viewTimes = Array(repeating: nil, count: flow.steps.count)
    }

    public mutating func add(_ session: RecordedSession) {
        guard selection.accepts(session) else { return }
        // One state and one buffer serve every session.
        replay.replay(session, into: &scratch, lastViewTime: &viewTimes, memo: &memo)
        switch options.unit {
        case .session: Self.count(scratch, steps: flow.steps.count, groups: &groups)
        case .user: users.merge(scratch, user: session.userID, scratch: &merged)
        }
    }

    /// Counts `state` into its breakdown's group of `groups`, in place: one lookup, and the
    /// group's arrays are not copied. Static, so that ``scratch`` is read where it is: passed to a
    /// mutating method it was copied (each of its arrays retained and released, a tenth of a
    /// warm flow report from a file).
    static func count(_ state: FunnelUnitState, steps: Int, groups: inout [String: GroupCounts]) {
        count(state, steps: steps, into: &groups[state.breakdown ?? "", default: GroupCounts(stepCount: steps)])
    }

    private static func count(_ state: FunnelUnitState, steps: Int, into group: inout GroupCounts) {
        group.started += 1
        switch state.status {
        case .completed: group.completed += 1
        case .dropped:
            group.dropped += 1
            if let last = state.lastStep { group.droppedHere[last] += 1 } else { group.droppedBeforeFirstStep += 1 }
        case .inProgress:
            group.inProgress += 1
            if let last = state.lastStep { group.inProgressHere[last] += 1 }
        }
        // In-progress units are reported apart: they have not had their chance at the later steps.
        if state.status != .inProgress {
            var previousViewed = true  // the start
            for index in 0..<steps where state.eligible[index] {
                group.eligible[index] += 1
                if previousViewed {
                    group.previousReached[index] += 1
                    if state.viewed[index] { group.viewedAfterPrevious[index] += 1 }
                }
                if state.viewed[index] {
                    group.viewed[index] += 1
                    if state.microsecondsFromStart[index] != FunnelUnitState.none {
                        group.fromStart[index].append(microseconds: state.microsecondsFromStart[index])
                    }
                }
                if state.completed[index] { group.completedStep[index] += 1 }
                if state.skipped[index] { group.skipped[index] += 1 }
                if state.microsecondsOnStep[index] != FunnelUnitState.none {
                    group.onStep[index].append(microseconds: state.microsecondsOnStep[index])
                }
                previousViewed = state.viewed[index]
            }
        }
    }

    public mutating func report() -> FunnelReport {
        if options.unit == .user {
            users.takeAll().forEach { Self.count($1, steps: flow.steps.count, groups: &groups) }
        }
        let keys = groups.keys.sorted()
        let reportGroups = keys.compactMap { key -> FunnelReport.Group? in
            guard let counts = groups[key] else { return nil }
            let summaries = DurationSummary.summaries(counts.onStep + counts.fromStart)
            let stepCount = flow.steps.count
            let steps = flow.steps.enumerated().map { index, step in
                FunnelReport.StepRow(
                    step: step.id, condition: step.when?.source, eligible: counts.eligible[index],
                    viewed: counts.viewed[index], completed: counts.completedStep[index],
                    skipped: counts.skipped[index],
                    droppedHere: counts.droppedHere[index], inProgressHere: counts.inProgressHere[index],
                    conversionFromPrevious: Self.ratio(
                        counts.viewedAfterPrevious[index], counts.previousReached[index]),
                    conversionFromStart: Self.ratio(counts.viewed[index], counts.eligible[index]),
                    timeOnStep: summaries[index], timeFromStart: summaries[stepCount + index])
            }
            let settled = counts.started - counts.inProgress
            let totals = FunnelReport.Totals(
                started: counts.started, completed: counts.completed, dropped: counts.dropped,
                inProgress: counts.inProgress, completionRate: Self.ratio(counts.completed, settled),
                droppedBeforeFirstStep: counts.droppedBeforeFirstStep)
            return FunnelReport.Group(breakdown: options.breakdown == nil ? nil : key, totals: totals, steps: steps)
        }
        return FunnelReport(
            flowID: flow.id, flowVersion: flow.version, unit: options.unit, windowSeconds: options.window,
            inactivitySeconds: options.inactivity, since: options.since, until: options.until, reportEnd: reportEnd,
            breakdownBy: options.breakdown, groups: reportGroups, otherFlowSessions: selection.otherFlowSessions)
    }

    private static func ratio(_ numerator: Int, _ denominator: Int) -> Double? {
        denominator == 0 ? nil : Double(numerator) / Double(denominator)
    }
}
