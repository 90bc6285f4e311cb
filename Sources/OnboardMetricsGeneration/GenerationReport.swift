import Foundation

/// The parameters file written beside generated data: everything needed to regenerate it and to
/// check that an analysis recovers the model.
public struct GenerationReport: Codable, Sendable, Hashable {
    /// The scenario name.
    public var scenario: String
    /// The seed.
    public var seed: UInt64
    /// Sessions requested.
    public var sessions: Int
    /// End of the period (ISO 8601): sessions still running then are cut off (in progress).
    public var periodEnd: String
    /// The flows, `id@version`.
    public var flows: [String]
    /// The behaviour model used.
    public var model: BehaviourModel
    /// What was produced.
    public var summary: GenerationSummary

    /// Creates a report.
    public init(
        scenario: String, seed: UInt64, sessions: Int, periodEnd: String, flows: [String], model: BehaviourModel,
        summary: GenerationSummary
    ) {
        self.scenario = scenario
        self.seed = seed
        self.sessions = sessions
        self.periodEnd = periodEnd
        self.flows = flows
        self.model = model
        self.summary = summary
    }

    /// Pretty-printed JSON with sorted keys (deterministic bytes).
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
