extension FlowDefinition {
    /// Checks the flow on its own: non-empty, unique non-empty step and highlight ids, known jump
    /// targets, parsable conditions, no hand-off to itself. Errors name the JSON path.
    ///
    /// Hand-off targets in other flows are checked by `FlowCatalog`.
    public func validate() throws(FlowError) {
        if id.isEmpty { throw FlowError(.emptyID, "flow id is empty", path: "$.id") }
        if steps.isEmpty { throw FlowError(.emptyFlow, "flow '\(id)' has no steps", path: "$.steps") }
        var seen: [String: Int] = [:]
        var highlights: [String: String] = [:]
        for (index, step) in steps.enumerated() {
            let path = "$.steps[\(index)]"
            if step.id.isEmpty { throw FlowError(.emptyID, "step id is empty", path: "\(path).id") }
            if let first = seen[step.id] {
                throw FlowError(
                    .duplicateStepID, "step id '\(step.id)' is already used by $.steps[\(first)]", path: "\(path).id")
            }
            seen[step.id] = index
            if let condition = step.when, let error = condition.syntaxError {
                // Cut short: a hostile condition may be many kilobytes long.
                let source = condition.source.count > 60 ? String(condition.source.prefix(60)) + "…" : condition.source
                throw FlowError(
                    error.code, "condition \"\(source)\" does not parse: \(error.message)",
                    path: "\(path).when", column: error.column)
            }
            for (number, highlight) in step.highlights.enumerated() {
                let highlightPath = "\(path).highlights[\(number)].id"
                if highlight.id.isEmpty { throw FlowError(.emptyID, "highlight id is empty", path: highlightPath) }
                if let other = highlights[highlight.id] {
                    throw FlowError(
                        .duplicateHighlightID, "highlight id '\(highlight.id)' is already used by \(other)",
                        path: highlightPath)
                }
                highlights[highlight.id] = highlightPath
            }
            if step.handOff == id {
                throw FlowError(.handOffCycle, "flow '\(id)' hands off to itself", path: "\(path).handOff")
            }
        }
        for (index, step) in steps.enumerated() {
            for (number, target) in step.jumps.enumerated() where seen[target] == nil {
                throw FlowError(
                    .unknownJumpTarget, "jump target '\(target)' is not a step of flow '\(id)'",
                    path: "$.steps[\(index)].jumps[\(number)]")
            }
        }
    }
}
