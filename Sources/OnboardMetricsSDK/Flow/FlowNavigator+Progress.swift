extension FlowNavigator {
    /// How far the session is through the flow on screen, for a progress indicator.
    public struct Progress: Sendable, Hashable {
        /// Steps of the flow on screen whose conditions hold for the session's context.
        public var total: Int
        /// Of those, the ones before the current step (all of them once the flow completed).
        public var done: Int

        /// Progress of `done` steps out of `total`.
        public init(total: Int, done: Int) {
            self.total = total
            self.done = done
        }

        /// `done / total`, 0...1 (1 for a flow with no step that applies).
        public var fraction: Double { total == 0 ? 1 : Double(done) / Double(total) }
    }

    /// How far the session is through the flow on screen (a sub-flow while one runs).
    public var progress: Progress {
        let flow = currentFlow
        var eligible = 0
        var before = 0
        let current = frames.last?.index
        for (index, step) in flow.steps.enumerated() where step.applies(to: context) {
            eligible += 1
            if let current, index < current { before += 1 }
        }
        if status == .completed { before = eligible }
        return Progress(total: eligible, done: before)
    }

    /// Whether ``skip()`` is allowed now: the flow runs and the step on screen is skippable.
    public var canSkip: Bool { status == .running && (currentStep?.skippable ?? false) }
}
