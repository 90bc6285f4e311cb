import Foundation
import OnboardMetricsReader
import OnboardMetricsSDK
import OnboardMetricsStatistics

/// Counts replayed sessions into a ``CorrelationReport``, one group per breakdown value. Per
/// session it keeps counters per candidate; per user it keeps each user's merged trace.
public struct CorrelationAggregator: Sendable {
    struct Pair: Sendable {
        var successes = 0
        var failures = 0
    }

    struct GroupCounts: Sendable {
        var successes = 0
        var failures = 0
        var inProgress = 0
        var notEntered = 0
        var candidates: [CorrelationCandidate: Pair] = [:]
    }

    let flow: FlowDefinition
    let options: CorrelationOptions
    let replay: FunnelReplay
    let stepIndex: Int?
    let reportEnd: Date
    var selection: SessionSelection
    var groups: [String: GroupCounts] = [:]
    var users: PackedUnitStore<CorrelationTrace>
    /// Reused to unpack a user's trace (unit user).
    private var scratch: CorrelationTrace
    /// The names the traces' numbers stand for.
    var names = StringNumbers()

    /// - Throws: ``CorrelationError`` when `options.step` is not a step of `flow`.
    public init(flow: FlowDefinition, options: CorrelationOptions, now: Date) throws {
        self.flow = flow
        self.options = options
        if let step = options.step {
            guard let index = flow.index(of: step) else {
                throw CorrelationError(
                    code: .unknownStep,
                    message: flow.unknownStepMessage(step))
            }
            stepIndex = index
        } else {
            stepIndex = nil
        }
        let end = options.funnel.reportEnd ?? options.funnel.until ?? now
        reportEnd = end
        replay = FunnelReplay(flow: flow, options: options.funnel, reportEnd: RecordedEvent.microseconds(end))
        selection = SessionSelection(flowID: flow.id, since: options.funnel.since, until: options.funnel.until)
        users = PackedUnitStore(stepCount: flow.steps.count)
        scratch = CorrelationTrace(stepCount: flow.steps.count)
    }

    public mutating func add(_ session: RecordedSession) {
        guard selection.accepts(session) else { return }
        let trace = CorrelationTrace(session, replay: replay, stepIndex: stepIndex, names: &names)
        switch options.funnel.unit {
        case .session: count(trace)
        case .user: users.merge(trace, user: session.userID, scratch: &scratch)
        }
    }

    private mutating func count(_ trace: CorrelationTrace) {
        let key = trace.state.breakdown ?? ""
        var group = groups.removeValue(forKey: key) ?? GroupCounts()
        defer { groups[key] = group }
        guard let success = trace.outcome(stepIndex: stepIndex) else {
            if let stepIndex, !trace.state.viewed[stepIndex] {
                group.notEntered += 1
            } else {
                group.inProgress += 1
            }
            return
        }
        if success { group.successes += 1 } else { group.failures += 1 }
        let candidates =
            trace.events(success: success).map { CorrelationCandidate(kind: .event, name: names[$0]) }
            + trace.context.map { CorrelationCandidate(kind: .property, name: names[$0]) }
        for candidate in candidates {
            if success {
                group.candidates[candidate, default: Pair()].successes += 1
            } else {
                group.candidates[candidate, default: Pair()].failures += 1
            }
        }
    }

    public mutating func report() -> CorrelationReport {
        if options.funnel.unit == .user {
            users.takeAll().forEach { count($1) }
        }
        let reportGroups = groups.keys.sorted().compactMap { key -> CorrelationReport.Group? in
            guard let counts = groups[key] else { return nil }
            return Self.group(counts, breakdown: options.funnel.breakdown == nil ? nil : key, options: options)
        }
        let share = options.balancedShare.lowerBound
        return CorrelationReport(
            flowID: flow.id, flowVersion: flow.version, step: options.step, unit: options.funnel.unit,
            windowSeconds: options.funnel.window, inactivitySeconds: options.funnel.inactivity,
            since: options.funnel.since, until: options.funnel.until, reportEnd: reportEnd,
            breakdownBy: options.funnel.breakdown, correction: options.correction, alpha: options.alpha,
            top: options.top, minimumUnits: options.minimumUnits, minimumShare: share, groups: reportGroups,
            otherFlowSessions: selection.otherFlowSessions)
    }
}
