import Foundation
import OnboardMetricsSDK

/// What `funnel simulate` forecasts and how: the candidate and baseline flows, assumptions for
/// steps without data, the bootstrap, and which recorded sessions the behaviour comes from.
public struct SimulationOptions: Sendable {
    /// Recorded sessions of one experiment variant (e.g. only the control arm).
    public struct VariantFilter: Sendable, Hashable, Codable {
        /// The experiment key.
        public var experiment: String
        /// The variant name.
        public var variant: String

        /// Creates a filter.
        public init(experiment: String, variant: String) {
            self.experiment = experiment
            self.variant = variant
        }
    }

    /// The changed flow to forecast.
    public var candidate: FlowDefinition
    /// The flow the recorded sessions ran; its sessions (same id and version) are the data.
    public var baseline: FlowDefinition
    /// Sub-flows that hand-offs of either flow may enter.
    public var catalog: FlowCatalog?
    /// Step id → assumed continuation rate (share of viewers who go on: complete, skip or jump).
    /// Required for candidate steps with no recorded data; overrides the data for others.
    public var assumptions: [String: Double] = [:]
    /// Bootstrap draws.
    public var draws = 1_000
    /// Seed of the bootstrap: the same seed and data give the same report.
    public var seed: UInt64 = 1
    /// A context attribute to estimate behaviour separately for (besides the baseline's conditions).
    public var stratify: String?
    /// Only sessions exposed to this variant.
    public var variant: VariantFilter?
    /// Below this many viewers in a stratum, a step's behaviour is pooled over all strata.
    public var minimumObservations = 30
    /// Conversion window after a session's start (as `funnel report`).
    public var window: TimeInterval = 7 * 86_400
    /// Inactivity after which a session without completion has dropped (as `funnel report`).
    public var inactivity: TimeInterval = 30 * 60
    /// Sessions that started at or after this instant.
    public var since: Date?
    /// Sessions that started before this instant.
    public var until: Date?
    /// Interval level of the bootstrap percentile intervals.
    public var level = 0.95
    /// Significance and power of the A/B test whose size is reported.
    public var alpha = 0.05
    public var power = 0.8

    /// Creates options for forecasting `candidate` from sessions of `baseline`.
    public init(candidate: FlowDefinition, baseline: FlowDefinition) {
        self.candidate = candidate
        self.baseline = baseline
    }

    /// Parses `STEP=RATE` (a continuation rate in [0, 1]).
    /// - Throws: `SimulationError` (`.badAssumption`) naming what is wrong.
    public static func assumption(parsing text: String) throws(SimulationError) -> (step: String, rate: Double) {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty else {
            throw SimulationError(.badAssumption, "'\(text)' is not STEP=RATE (e.g. tutorial=0.9)")
        }
        guard let rate = Double(parts[1]), rate >= 0, rate <= 1 else {
            throw SimulationError(
                .badAssumption, "'\(text)': the rate must be a share of viewers who continue, between 0 and 1")
        }
        return (parts[0], rate)
    }
}
