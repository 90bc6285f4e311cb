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

    init(flow: FlowDefinition, options: FunnelOptions, reportEnd: Int64) {
        self.flow = flow
        self.window = DurationText.microseconds(options.window)
        self.inactivity = DurationText.microseconds(options.inactivity)
        self.reportEnd = reportEnd
        self.breakdown = options.breakdown
    }

    func replay(_ session: RecordedSession) -> FunnelUnitState {
        var state = FunnelUnitState(stepCount: flow.steps.count)
        let start = session.startTime
        state.start = start
        state.breakdown = breakdownValue(session)
        for (index, step) in flow.steps.enumerated() { state.eligible[index] = step.applies(to: session.context) }
        var lastViewTime = [Int64?](repeating: nil, count: flow.steps.count)
        var lastActivity = start
        var finished = false
        var abandoned = false
        for event in session.events {
            guard event.time <= start + window else { break }
            lastActivity = event.time
            guard event.flowID == nil || event.flowID == flow.id else { continue }
            switch event.kind {
            case .stepViewed:
                guard let index = stepIndex(event) else { continue }
                if !state.viewed[index] {
                    state.viewed[index] = true
                    state.secondsFromStart[index] = Double(event.time - start) / 1_000_000
                }
                lastViewTime[index] = event.time
                state.lastStep = index
            case .stepCompleted, .stepSkipped:
                guard let index = stepIndex(event), let viewedAt = lastViewTime[index] else { continue }
                if state.secondsOnStep[index].isNaN {
                    state.secondsOnStep[index] = Double(event.time - viewedAt) / 1_000_000
                }
                if event.kind == .stepCompleted {
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
        return state
    }

    private func stepIndex(_ event: RecordedEvent) -> Int? {
        guard let stepID = event.stepID else { return nil }
        return flow.index(of: stepID)
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
