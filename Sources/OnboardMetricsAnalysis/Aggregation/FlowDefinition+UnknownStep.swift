import OnboardMetricsSDK

extension FlowDefinition {
    /// What every report says of a step id the flow does not have: the id, the flow and its steps.
    package func unknownStepMessage(_ step: String) -> String {
        "step '\(step)' is not in flow \(id) v\(version) (its steps: " + steps.map(\.id).joined(separator: ", ") + ")"
    }
}
