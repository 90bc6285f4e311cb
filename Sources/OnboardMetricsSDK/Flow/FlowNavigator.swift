/// The pure state machine of onboarding: what comes next in a flow for a session context.
///
/// One navigator drives a live onboarding (the SDK calls `start()`, `next()`, `skip()`, ...; each
/// returns the events the move implies, or throws `FlowError` for an illegal move) and replays a
/// recorded session (the analyzer calls `observe(_:)` with each recorded event and gets the
/// deviations from a legal run; the navigator then follows the recording so one deviation does
/// not cascade). Live moves are implemented by emitting events through the same transition
/// function that `observe(_:)` uses, so every live run replays without deviations.
///
/// Rules:
/// - `next()` completes the current step and views the next step whose condition holds; past the
///   last step it emits `flow_completed`. Completing a step with a hand-off enters the sub-flow;
///   when the sub-flow completes the parent continues after the hand-off step.
/// - `goTo(_:)` completes the current step and views any declared step of the current flow;
///   navigation continues in declared order from there. Both events carry `"via": "jump"`.
/// - `back()` returns to the step viewed before the current one (within the current flow).
/// - `showCustom(_:)` records a screen outside the flow; the position does not change.
public struct FlowNavigator: Sendable {
    /// Where the session is.
    public enum Status: String, Sendable, Hashable {
        /// `start()` not yet called (or, in replay, no step event observed yet).
        case notStarted
        /// On a step.
        case running
        /// The root flow completed.
        case completed
        /// The flow was abandoned.
        case abandoned
    }

    package struct Frame: Sendable, Hashable {
        var flow: FlowDefinition
        /// The current step; nil before the first step of this flow.
        package var index: Int?
        var viewed = false
        /// Whether the current step was completed or skipped.
        var done = false
        /// Indices of steps viewed before the current one, for `back()`.
        package var history: [Int] = []

        init(_ flow: FlowDefinition) { self.flow = flow }
    }

    /// The session context the conditions are evaluated against.
    public let context: [String: JSONValue]
    /// The flow the session runs.
    public let flow: FlowDefinition
    let subFlows: [String: FlowDefinition]
    package var frames: [Frame]
    /// Where the session is.
    public internal(set) var status: Status = .notStarted

    /// Creates a navigator for `flow`; sub-flows named by hand-offs are looked up in `catalog`.
    public init(flow: FlowDefinition, catalog: FlowCatalog? = nil, context: [String: JSONValue] = [:]) {
        self.flow = flow
        self.subFlows = catalog?.flows ?? [:]
        self.context = context
        self.frames = [Frame(flow)]
    }

    /// The flow currently shown (a sub-flow while one is handed off to).
    public var currentFlow: FlowDefinition { frames.last?.flow ?? flow }

    /// The ids of the flows entered, root first.
    public var flowStack: [String] { frames.map(\.flow.id) }

    /// The step currently shown, if any.
    public var currentStep: Step? {
        // Reads through the array instead of copying the frame (`frames.last` would retain it all).
        guard !frames.isEmpty, let index = frames[frames.count - 1].index else { return nil }
        return frames[frames.count - 1].flow.steps[index]
    }

    /// The id of the flow currently shown, without copying the definition.
    package var currentFlowID: String { frames.isEmpty ? flow.id : frames[frames.count - 1].flow.id }

    /// Whether the flow completed or was abandoned.
    public var isFinished: Bool { status == .completed || status == .abandoned }

    /// Whether `back()` would succeed.
    public var canGoBack: Bool { status == .running && !(frames.last?.history.isEmpty ?? true) }

    /// The index of the first step at or after `start` whose condition holds.
    func nextEligible(in flow: FlowDefinition, from start: Int) -> Int? {
        var index = start
        while index < flow.steps.count {
            if flow.steps[index].applies(to: context) { return index }
            index += 1
        }
        return nil
    }

    func draft(
        _ kind: EventKind, flow: FlowDefinition? = nil, step: String? = nil, name: String? = nil,
        properties: [String: JSONValue] = [:]
    ) -> EventDraft {
        let id: String
        let version: Int
        if let flow {
            (id, version) = (flow.id, flow.version)
        } else if !frames.isEmpty {
            (id, version) = (frames[frames.count - 1].flow.id, frames[frames.count - 1].flow.version)
        } else {
            (id, version) = (self.flow.id, self.flow.version)
        }
        return EventDraft(
            kind: kind, flowID: id, flowVersion: version, stepID: step, name: name, properties: properties)
    }
}
