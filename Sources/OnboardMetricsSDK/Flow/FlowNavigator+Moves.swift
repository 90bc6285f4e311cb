extension FlowNavigator {
    /// Starts the session: `session_started` (with the context) and the first step's view.
    public mutating func start() throws(FlowError) -> [EventDraft] {
        guard status == .notStarted else { throw FlowError(.alreadyStarted, "the session has already started") }
        var events: [EventDraft] = []
        emit(draft(.sessionStarted, flow: flow, properties: ["context": .object(context)]), into: &events)
        advance(into: &events)
        return events
    }

    /// Completes the current step and moves to the next step whose condition holds (entering a
    /// sub-flow if the step hands off; completing the flow after the last step).
    public mutating func next() throws(FlowError) -> [EventDraft] {
        let step = try runningStep()
        if let target = step.handOff, subFlows[target] == nil {
            throw FlowError(.unknownHandOffTarget, "step '\(step.id)' hands off to unknown flow '\(target)'")
        }
        var events: [EventDraft] = []
        emit(draft(.stepCompleted, step: step.id), into: &events)
        advance(into: &events)
        return events
    }

    /// Skips the current step; throws `.notSkippable` unless the step is skippable.
    public mutating func skip() throws(FlowError) -> [EventDraft] {
        let step = try runningStep()
        guard step.skippable else {
            throw FlowError(.notSkippable, "step '\(step.id)' of flow '\(currentFlowID)' is not skippable")
        }
        var events: [EventDraft] = []
        emit(draft(.stepSkipped, step: step.id), into: &events)
        advance(into: &events)
        return events
    }

    /// Completes the current step and jumps to `stepID`, a step of the current flow; navigation
    /// continues in declared order from there.
    public mutating func goTo(_ stepID: String) throws(FlowError) -> [EventDraft] {
        let step = try runningStep()
        guard currentFlow.index(of: stepID) != nil else {
            throw FlowError(.unknownStep, "flow '\(currentFlowID)' has no step '\(stepID)'")
        }
        var events: [EventDraft] = []
        emit(draft(.stepCompleted, step: step.id, properties: ["via": "jump", "to": .string(stepID)]), into: &events)
        emit(draft(.stepViewed, step: stepID, properties: ["via": "jump"]), into: &events)
        return events
    }

    /// Goes back to the step viewed before the current one.
    public mutating func back() throws(FlowError) -> [EventDraft] {
        let step = try runningStep()
        guard let previous = frames.last?.history.last else {
            throw FlowError(.noHistory, "there is no step before '\(step.id)' to go back to")
        }
        let previousID = currentFlow.steps[previous].id
        var events: [EventDraft] = []
        emit(draft(.stepBack, step: step.id, properties: ["to": .string(previousID)]), into: &events)
        emit(draft(.stepViewed, step: previousID), into: &events)
        return events
    }

    /// Records a screen outside the flow (a `custom` event with `"screen": true`); the position
    /// in the flow does not change.
    public mutating func showCustom(_ name: String, properties: [String: JSONValue] = [:]) throws(FlowError)
        -> [EventDraft]
    {
        _ = try runningStep()
        var merged = properties
        merged["screen"] = true
        return emitOne(draft(.custom, step: currentStep?.id, name: name, properties: merged))
    }

    /// Shows a highlight declared by the flow (or an entered sub-flow).
    public mutating func showHighlight(_ highlightID: String) throws(FlowError) -> [EventDraft] {
        let highlight = try declaredHighlight(highlightID)
        return emitOne(
            draft(
                .highlightShown, step: currentStep?.id, name: highlightID,
                properties: ["feature": .string(highlight.feature)]))
    }

    /// Dismisses a highlight with a reason.
    public mutating func dismissHighlight(_ highlightID: String, reason: DismissReason) throws(FlowError)
        -> [EventDraft]
    {
        let highlight = try declaredHighlight(highlightID)
        return emitOne(
            draft(
                .highlightDismissed, step: currentStep?.id, name: highlightID,
                properties: ["feature": .string(highlight.feature), "reason": .string(reason.rawValue)]))
    }

    /// Records a use of a feature (allowed at any time, also after the flow finished).
    public mutating func featureUsed(_ featureID: String, properties: [String: JSONValue] = [:]) -> [EventDraft] {
        emitOne(draft(.featureUsed, step: currentStep?.id, name: featureID, properties: properties))
    }

    /// Records that the session was exposed to `variant` of experiment `experimentKey`.
    public mutating func exposure(experiment experimentKey: String, variant: String) -> [EventDraft] {
        emitOne(draft(.experimentExposure, name: experimentKey, properties: ["variant": .string(variant)]))
    }

    /// Records a named application event.
    public mutating func custom(_ name: String, properties: [String: JSONValue] = [:]) -> [EventDraft] {
        emitOne(draft(.custom, step: currentStep?.id, name: name, properties: properties))
    }

    /// Abandons the flow at the current step (the user closed onboarding).
    public mutating func abandon() throws(FlowError) -> [EventDraft] {
        let step = try runningStep()
        return emitOne(draft(.flowAbandoned, step: step.id))
    }

    // MARK: - Helpers

    private func runningStep() throws(FlowError) -> Step {
        guard status == .running, let step = currentStep else {
            throw FlowError(.notRunning, "the session is \(status.rawValue), not on a step")
        }
        return step
    }

    private func declaredHighlight(_ highlightID: String) throws(FlowError) -> Highlight {
        for frame in frames.reversed() {
            if let highlight = frame.flow.highlight(highlightID) { return highlight }
        }
        throw FlowError(.unknownHighlight, "flow '\(currentFlowID)' declares no highlight '\(highlightID)'")
    }

    private mutating func emitOne(_ event: EventDraft) -> [EventDraft] {
        var events: [EventDraft] = []
        emit(event, into: &events)
        return events
    }

    /// Applies a move's event and collects it; live moves are legal by construction.
    private mutating func emit(_ event: EventDraft, into events: inout [EventDraft]) {
        let deviations = observe(event)
        assert(deviations.isEmpty, "live move produced deviations: \(deviations)")
        events.append(event)
    }

    /// After the current step is done: views the next eligible step, completing (sub-)flows
    /// that have none left.
    private mutating func advance(into events: inout [EventDraft]) {
        while status == .running, let frame = frames.last {
            let start = frame.index.map { $0 + 1 } ?? 0
            if let index = nextEligible(in: frame.flow, from: start) {
                emit(draft(.stepViewed, step: frame.flow.steps[index].id), into: &events)
                return
            }
            emit(draft(.flowCompleted, flow: frame.flow), into: &events)
        }
    }
}
