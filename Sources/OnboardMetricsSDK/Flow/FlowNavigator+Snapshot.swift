extension FlowNavigator {
    /// Where a navigator is, as plain values a file can hold (the flows themselves are not stored:
    /// they come back from the app's catalog, and each frame names its step so that a changed
    /// definition under the same version is noticed).
    package struct Snapshot: Sendable, Hashable, Codable {
        package struct Frame: Sendable, Hashable, Codable {
            package var flowID: String
            package var flowVersion: Int
            package var index: Int?
            /// The id of the step at `index`, checked on restore.
            package var stepID: String?
            package var viewed: Bool
            package var done: Bool
            package var history: [Int]

            enum CodingKeys: String, CodingKey {
                case flowID = "flow_id"
                case flowVersion = "flow_version"
                case index
                case stepID = "step_id"
                case viewed, done, history
            }
        }

        /// ``FlowNavigator/Status`` by its raw value.
        package var status: String
        /// Root flow first.
        package var frames: [Frame]
    }

    /// The navigator's position as a ``Snapshot``.
    package var snapshot: Snapshot {
        Snapshot(
            status: status.rawValue,
            frames: frames.map { frame in
                Snapshot.Frame(
                    flowID: frame.flow.id, flowVersion: frame.flow.version, index: frame.index,
                    stepID: frame.index.map { frame.flow.steps[$0].id }, viewed: frame.viewed, done: frame.done,
                    history: frame.history)
            })
    }

    /// A navigator for `flow` put back where `snapshot` says.
    /// - Throws: `FlowError` `.unknownStep` when the snapshot does not fit the definitions (another
    ///   version, a step that moved, an index out of range): such a session cannot be resumed.
    package init(
        restoring snapshot: Snapshot, flow: FlowDefinition, catalog: FlowCatalog?, context: [String: JSONValue]
    ) throws(FlowError) {
        self.init(flow: flow, catalog: catalog, context: context)
        guard let status = Status(rawValue: snapshot.status), !snapshot.frames.isEmpty else {
            throw FlowError(.unknownStep, "the saved position of flow '\(flow.id)' is not readable")
        }
        var restored: [Frame] = []
        for (position, saved) in snapshot.frames.enumerated() {
            let definition = position == 0 ? flow : subFlows[saved.flowID]
            guard let definition, definition.id == saved.flowID, definition.version == saved.flowVersion else {
                throw FlowError(
                    .unknownStep, "flow '\(saved.flowID)' version \(saved.flowVersion) is not the one the app has")
            }
            let valid = 0..<definition.steps.count
            if let index = saved.index {
                guard valid.contains(index), definition.steps[index].id == saved.stepID else {
                    throw FlowError(.unknownStep, "flow '\(saved.flowID)' no longer has its saved step there")
                }
            }
            guard saved.history.allSatisfy(valid.contains) else {
                throw FlowError(.unknownStep, "flow '\(saved.flowID)' has fewer steps than its saved history")
            }
            var frame = Frame(definition)
            frame.index = saved.index
            frame.viewed = saved.viewed
            frame.done = saved.done
            frame.history = saved.history
            restored.append(frame)
        }
        self.frames = restored
        self.status = status
    }
}
