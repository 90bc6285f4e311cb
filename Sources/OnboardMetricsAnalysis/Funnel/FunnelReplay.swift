import OnboardMetricsReader
import OnboardMetricsSDK

/// Replays one recorded session against a flow and says what it did on each step.
///
/// Semantics (shared/DESIGN.md): a step whose condition is false for the session's context is not
/// on its path — neither reached nor a drop-off there. Only events within the conversion window
/// after the session's start count. A session completed when `flow_completed` of the flow came
/// within the window; otherwise it is in progress when its window is still open and its last
/// activity is more recent than the inactivity timeout before the report's end, and dropped (at
/// its last viewed step) when not — or when it recorded `flow_abandoned`.
struct FunnelReplay: Sendable {
    let flow: FlowDefinition
    let window: Int64
    let inactivity: Int64
    let reportEnd: Int64
    let breakdown: String?
    /// The steps' ids: `FlowDefinition.index(of:)` copied each step to compare its id (and
    /// hashing the id cost more than comparing a handful of short strings).
    let stepIDs: [String]
    /// The steps' conditions (`nil`: always on the path), for the same reason.
    let conditions: [Condition?]
    /// Whether any step has a condition (else every step is on every path).
    let anyCondition: Bool

    init(flow: FlowDefinition, options: FunnelOptions, reportEnd: Int64) {
        self.flow = flow
        self.window = DurationText.microseconds(options.window)
        self.inactivity = DurationText.microseconds(options.inactivity)
        self.reportEnd = reportEnd
        self.breakdown = options.breakdown
        self.stepIDs = flow.steps.map(\.id)
        self.conditions = flow.steps.map(\.when)
        self.anyCondition = conditions.contains { $0 != nil }
    }

    func replay(_ session: RecordedSession) -> FunnelUnitState {
        var state = FunnelUnitState(stepCount: flow.steps.count)
        var lastViewTime = [Int64?](repeating: nil, count: flow.steps.count)
        var memo = EligibilityMemo()
        replay(session, into: &state, lastViewTime: &lastViewTime, memo: &memo)
        return state
    }

    /// ``replay(_:)`` into `state` and `lastViewTime` (one per step), both reset first: an
    /// aggregator that counts each state at once reuses them (seven allocations a session less),
    /// and one `memo` of which steps each context puts on the path.
    func replay(
        _ session: RecordedSession, into state: inout FunnelUnitState, lastViewTime: inout [Int64?],
        memo: inout EligibilityMemo
    ) {
        state.reset()
        for index in lastViewTime.indices { lastViewTime[index] = nil }
        let start = session.startTime
        state.start = start
        state.breakdown = breakdownValue(session)
        // By index, here and over the events: iterating copied each step and event (retaining
        // their strings), a fifth of a warm report's time from memory.
        memo.evaluate(conditions, anyCondition: anyCondition, on: session.context, into: &state.eligible)
        var lastActivity = start
        var finished = false
        var abandoned = false
        let events = session.events
        for position in events.indices {
            let time = events[position].time
            guard time <= start + window else { break }
            lastActivity = time
            if let flowID = events[position].flowID, flowID != flow.id { continue }
            let kind = events[position].kind
            switch kind {
            case .stepViewed:
                guard let index = stepIndex(events[position].stepID) else { continue }
                if !state.viewed[index] {
                    state.viewed[index] = true
                    state.microsecondsFromStart[index] = time - start
                }
                lastViewTime[index] = time
                state.lastStep = index
            case .stepCompleted, .stepSkipped:
                guard let index = stepIndex(events[position].stepID), let viewedAt = lastViewTime[index] else {
                    continue
                }
                if state.microsecondsOnStep[index] == FunnelUnitState.none {
                    state.microsecondsOnStep[index] = time - viewedAt
                }
                if kind == .stepCompleted {
                    state.completed[index] = true
                    state.skipped[index] = false
                } else if !state.completed[index] {
                    state.skipped[index] = true
                }
            case .flowCompleted:
                finished = true
            case .flowAbandoned:
                abandoned = true
            default:
                continue
            }
            // No early exit at flow_completed: skew correction of events sent in different batches
            // can order the last step's completion just after it.
        }
        if finished {
            state.status = .completed
            state.lastStep = nil
        } else if !abandoned, start + window > reportEnd, lastActivity + inactivity > reportEnd {
            state.status = .inProgress
        } else {
            state.status = .dropped
        }
    }

    private func stepIndex(_ stepID: String?) -> Int? {
        guard let stepID else { return nil }
        return stepIDs.firstIndex(of: stepID)
    }

    private func breakdownValue(_ session: RecordedSession) -> String? {
        guard let breakdown else { return nil }
        if breakdown.hasPrefix("variant:") {
            return session.variant(of: String(breakdown.dropFirst("variant:".count))) ?? "(not exposed)"
        }
        let key = breakdown.hasPrefix("context.") ? String(breakdown.dropFirst("context.".count)) : breakdown
        return JSONValue.label(session.context[key])
    }
}
