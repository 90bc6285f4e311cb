extension FlowNavigator {
    /// Applies "what the recording says happened" and returns how it deviates from a legal move
    /// (empty when it is legal). The navigator follows the recording either way.
    ///
    /// A view is legal when it is the current step again, the next step on the path (after the
    /// current one was completed or skipped), a declared jump of the current step, or a recorded
    /// jump (`properties.via == "jump"`) to a declared step. Events that do not move through the
    /// flow (`feature_used`, `experiment_exposure`, `custom`) are always legal; highlights must be
    /// declared. Recordings that lack `session_started` start at their first step event.
    public mutating func observe(_ event: EventDraft) -> [Deviation] {
        switch event.kind {
        case .sessionStarted:
            if status == .notStarted { status = .running }
            return []
        case .featureUsed, .experimentExposure, .custom:
            return []
        case .highlightShown, .highlightDismissed:
            // Declared by the root flow or by any flow entered since.
            let name = event.name ?? ""
            if flow.highlight(name) != nil || frames.contains(where: { $0.flow.highlight(name) != nil }) { return [] }
            return [
                deviation(
                    .unknownHighlight, event, stepID: event.name,
                    "highlight '\(name)' is not declared by flow '\(currentFlowID)'")
            ]
        case .flowAbandoned:
            if isFinished { return [deviation(.afterFinish, event, "flow abandoned after it was \(status.rawValue)")] }
            status = .abandoned
            return []
        case .flowCompleted:
            return observeFlowCompleted(event)
        case .stepViewed, .stepCompleted, .stepSkipped, .stepBack:
            return observeStep(event)
        }
    }

    /// Observes a whole recorded session in order and returns all its deviations.
    public mutating func observe(contentsOf events: some Sequence<EventDraft>) -> [Deviation] {
        events.flatMap { observe($0) }
    }

    private func deviation(_ kind: Deviation.Kind, _ event: EventDraft, stepID: String? = nil, _ message: String)
        -> Deviation
    {
        Deviation(kind, flowID: event.flowID ?? currentFlowID, stepID: stepID ?? event.stepID, message: message)
    }

    /// Makes the frame of `flowID` the top frame, popping or pushing as the recording says.
    private mutating func enterFrame(of event: EventDraft, deviations: inout [Deviation]) -> Bool {
        guard let flowID = event.flowID, flowID != currentFlowID else { return true }
        if let position = frames.lastIndex(where: { $0.flow.id == flowID }) {
            deviations.append(
                deviation(.outOfOrder, event, "left sub-flow '\(currentFlowID)' before it completed"))
            frames.removeSubrange((position + 1)...)
            return true
        }
        if let sub = subFlows[flowID] {
            deviations.append(deviation(.outOfOrder, event, "entered flow '\(flowID)' without its hand-off"))
            frames.append(Frame(sub))
            return true
        }
        deviations.append(deviation(.unknownFlow, event, "flow '\(flowID)' is not known"))
        return false
    }

    private mutating func observeStep(_ event: EventDraft) -> [Deviation] {
        if isFinished {
            return [deviation(.afterFinish, event, "\(event.kind.rawValue) after the flow was \(status.rawValue)")]
        }
        status = .running
        var deviations: [Deviation] = []
        guard enterFrame(of: event, deviations: &deviations), var frame = frames.popLast() else { return deviations }
        defer { frames.append(frame) }
        guard let stepID = event.stepID, let index = frame.flow.index(of: stepID) else {
            deviations.append(
                deviation(.unknownStep, event, "flow '\(frame.flow.id)' has no step '\(event.stepID ?? "")'"))
            return deviations
        }
        let step = frame.flow.steps[index]
        switch event.kind {
        case .stepViewed:
            if index == frame.index {
                frame.viewed = true
                frame.done = false
                return deviations
            }
            let current = frame.index.map { frame.flow.steps[$0] }
            let isJump = event.properties["via"] == .string("jump") || (current?.jumps.contains(stepID) ?? false)
            let expected = nextEligible(in: frame.flow, from: frame.index.map { $0 + 1 } ?? 0)
            if !isJump && !step.applies(to: context) {
                deviations.append(
                    deviation(.conditionViolated, event, "step '\(stepID)' viewed although its condition is false"))
            } else if index == expected {
                if let current, !frame.done {
                    deviations.append(
                        deviation(
                            .missingCompletion, event,
                            "step '\(stepID)' viewed while '\(current.id)' was neither completed nor skipped"))
                }
            } else if !isJump {
                let wanted = expected.map { "'\(frame.flow.steps[$0].id)'" } ?? "the end of the flow"
                deviations.append(deviation(.outOfOrder, event, "step '\(stepID)' viewed where \(wanted) was next"))
            }
            if let previous = frame.index { frame.history.append(previous) }
            frame.index = index
            frame.viewed = true
            frame.done = false
        case .stepCompleted, .stepSkipped:
            if frame.index != index || !frame.viewed {
                deviations.append(
                    deviation(
                        .completedWithoutView, event,
                        "step '\(stepID)' \(event.kind == .stepSkipped ? "skipped" : "completed") without being viewed"
                    ))
                if frame.index != index {
                    if let previous = frame.index { frame.history.append(previous) }
                    frame.index = index
                }
            } else if frame.done {
                // A repeated completion (e.g. a resent event) changes nothing.
                return deviations
            }
            if event.kind == .stepSkipped && !step.skippable {
                deviations.append(deviation(.notSkippable, event, "step '\(stepID)' is not skippable"))
            }
            frame.viewed = true
            frame.done = true
            if event.kind == .stepCompleted, event.properties["via"] != .string("jump"), let target = step.handOff {
                if let sub = subFlows[target] {
                    frames.append(frame)
                    frame = Frame(sub)
                } else {
                    deviations.append(deviation(.unknownFlow, event, "hand-off target '\(target)' is not known"))
                }
            }
        case .stepBack:
            if frame.index != index {
                deviations.append(deviation(.outOfOrder, event, "back from '\(stepID)', which is not the current step"))
            }
            guard let previous = frame.history.popLast() else {
                deviations.append(deviation(.backWithoutHistory, event, "back from '\(stepID)' with no earlier step"))
                return deviations
            }
            frame.index = previous
            frame.viewed = false
            frame.done = false
        default:
            break
        }
        return deviations
    }

    private mutating func observeFlowCompleted(_ event: EventDraft) -> [Deviation] {
        if isFinished { return [deviation(.afterFinish, event, "flow completed after it was \(status.rawValue)")] }
        status = .running
        var deviations: [Deviation] = []
        guard enterFrame(of: event, deviations: &deviations), let frame = frames.last else { return deviations }
        let remaining = nextEligible(in: frame.flow, from: frame.index.map { $0 + 1 } ?? 0)
        if remaining != nil || (frame.index != nil && !frame.done) {
            deviations.append(
                deviation(.prematureCompletion, event, "flow '\(frame.flow.id)' completed before the end of its path"))
        }
        if frames.count > 1 {
            frames.removeLast()
        } else {
            status = .completed
        }
        return deviations
    }
}
