import Foundation

extension OnboardingSession {
    /// Starts a session, assigning the user in each experiment first (deterministically, by
    /// ``Assignment``; see ``ExperimentDefinition/assign(_:)``). Experiments the user is not
    /// enrolled in (outside their coverage) are left out, so no exposure is recorded for them;
    /// one `experiment_exposure` is recorded per experiment the user is in, when `exposure` says
    /// (``ExposureTiming``: as the app calls ``exposed(to:)``, by default).
    ///
    /// The parameters are those of
    /// ``start(flow:catalog:user:context:variants:exposure:sink:clock:random:)``, with `experiments` in
    /// place of already-assigned variants; ``variants`` tells which variants were chosen.
    /// - Throws: `FlowError` when the flow cannot start, `EventValidationError` for invalid input.
    public static func start(
        flow: FlowDefinition, catalog: FlowCatalog? = nil, user: String, context: [String: JSONValue] = [:],
        experiments: [ExperimentDefinition], exposure: ExposureTiming = .whenSeen, sink: any EventSink,
        clock: @escaping @Sendable () -> Date = { Date() },
        random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) throws -> OnboardingSession {
        var variants: [String: String] = [:]
        for experiment in experiments {
            if let variant = experiment.assign(user).variant { variants[experiment.key] = variant }
        }
        return try start(
            flow: flow, catalog: catalog, user: user, context: context, variants: variants, exposure: exposure,
            sink: sink, clock: clock, random: random)
    }
}
