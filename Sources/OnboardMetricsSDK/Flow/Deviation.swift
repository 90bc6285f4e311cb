/// A recorded event that is not a legal move of the flow, found by `FlowNavigator.observe(_:)`.
public struct Deviation: Sendable, Hashable, CustomStringConvertible {
    /// What kind of deviation it is (stable raw values, used in reports).
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// A step id the flow does not declare.
        case unknownStep
        /// A flow id neither the session's flow nor a sub-flow in the catalog.
        case unknownFlow
        /// A step viewed that is not the next one, not a re-view, not a declared or recorded jump
        /// (also: leaving or entering a sub-flow other than through its hand-off).
        case outOfOrder
        /// A step viewed whose condition is false for the session context.
        case conditionViolated
        /// A step completed or skipped that was not being viewed.
        case completedWithoutView
        /// A step skipped that is not skippable.
        case notSkippable
        /// The next step viewed while the current one was neither completed nor skipped.
        case missingCompletion
        /// `step_back` with no earlier step to go back to.
        case backWithoutHistory
        /// A highlight id the flow does not declare.
        case unknownHighlight
        /// A step or flow event after the flow completed or was abandoned.
        case afterFinish
        /// `flow_completed` while steps of the path were still ahead.
        case prematureCompletion
    }

    /// What kind of deviation it is.
    public var kind: Kind
    /// The flow of the offending event.
    public var flowID: String?
    /// The step of the offending event (or the highlight id for `unknownHighlight`).
    public var stepID: String?
    /// A sentence for people.
    public var message: String

    /// Creates a deviation.
    public init(_ kind: Kind, flowID: String?, stepID: String?, message: String) {
        self.kind = kind
        self.flowID = flowID
        self.stepID = stepID
        self.message = message
    }

    public var description: String { "\(kind.rawValue): \(message)" }
}
