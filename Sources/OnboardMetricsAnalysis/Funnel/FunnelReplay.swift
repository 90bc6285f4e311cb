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
        // By index: iterating copied each event (retaining its strings), a fifth of a warm
        // report's time from memory.
        let events = session.events
        replay(
            start: session.startTime, context: session.context, breakdown: breakdownValue(session),
            events: events.count, time: { events[$0].time },
            eventClass: { eventClass(kind: events[$0].kind, flowID: events[$0].flowID, stepID: events[$0].stepID) },
            into: &state, lastViewTime: &lastViewTime, memo: &memo)
    }

    /// ``replay(_:into:lastViewTime:memo:)`` of a session whose events come as classes (a session
    /// file's read): the breakdown must not be by variant, which needs the events themselves.
    func replay(
        classified session: ClassifiedSession, into state: inout FunnelUnitState, lastViewTime: inout [Int64?],
        memo: inout EligibilityMemo
    ) {
        let events = session.events
        replay(
            start: session.startTime, context: session.context, breakdown: breakdownValue(context: session.context),
            events: events.count, time: { events[$0].time }, eventClass: { events[$0].eventClass },
            into: &state, lastViewTime: &lastViewTime, memo: &memo)
    }

    /// What the replay needs of an event: 0 for one that only counts as activity (another
    /// flow's, or of a kind or step the funnel does not count), else its kind's code (1 viewed,
    /// 2 completed, 3 skipped, 4 flow completed, 5 flow abandoned) above the step's index.
    @inline(__always)
    func eventClass(kind: EventKind, flowID: String?, stepID: String?) -> UInt64 {
        if let flowID, flowID != flow.id { return 0 }
        let code: UInt64
        switch kind {
        case .stepViewed: code = 1
        case .stepCompleted: code = 2
        case .stepSkipped: code = 3
        case .flowCompleted: return 4 << 32
        case .flowAbandoned: return 5 << 32
        default: return 0
        }
        guard let index = stepIndex(stepID) else { return 0 }
        return code << 32 | UInt64(index)
    }

    /// The replay itself, over `events` events given by their times and classes (``eventClass(kind:flowID:stepID:)``).
    @inline(__always)
    private func replay(
        start: Int64, context: [String: JSONValue], breakdown: String?, events: Int, time: (Int) -> Int64,
        eventClass: (Int) -> UInt64, into state: inout FunnelUnitState, lastViewTime: inout [Int64?],
        memo: inout EligibilityMemo
    ) {
        state.reset()
        for index in lastViewTime.indices { lastViewTime[index] = nil }
        state.start = start
        state.breakdown = breakdown
        memo.evaluate(conditions, anyCondition: anyCondition, on: context, into: &state.eligible)
        var lastActivity = start
        var finished = false
        var abandoned = false
        for position in 0..<events {
            let time = time(position)
            guard time <= start + window else { break }
            lastActivity = time
            let eventClass = eventClass(position)
            let index = Int(truncatingIfNeeded: eventClass & 0xFFFF_FFFF)
            switch eventClass >> 32 {
            case 1:
                if !state.viewed[index] {
                    state.viewed[index] = true
                    state.microsecondsFromStart[index] = time - start
                }
                lastViewTime[index] = time
                state.lastStep = index
            case 2, 3:
                guard let viewedAt = lastViewTime[index] else { continue }
                if state.microsecondsOnStep[index] == FunnelUnitState.none {
                    state.microsecondsOnStep[index] = time - viewedAt
                }
                if eventClass >> 32 == 2 {
                    state.completed[index] = true
                    state.skipped[index] = false
                } else if !state.completed[index] {
                    state.skipped[index] = true
                }
            case 4:
                finished = true
            case 5:
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

    /// Whether the breakdown needs a session's events (its experiment variant), not only its context.
    var breaksDownByEvents: Bool { breakdown?.hasPrefix("variant:") ?? false }

    private func breakdownValue(_ session: RecordedSession) -> String? {
        guard let breakdown else { return nil }
        if breakdown.hasPrefix("variant:") {
            return session.variant(of: String(breakdown.dropFirst("variant:".count))) ?? "(not exposed)"
        }
        return breakdownValue(context: session.context)
    }

    private func breakdownValue(context: [String: JSONValue]) -> String? {
        guard let breakdown, !breaksDownByEvents else { return nil }
        let key = breakdown.hasPrefix("context.") ? String(breakdown.dropFirst("context.".count)) : breakdown
        return JSONValue.label(context[key])
    }
}
