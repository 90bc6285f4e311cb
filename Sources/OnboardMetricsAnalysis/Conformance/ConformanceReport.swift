import Foundation
import OnboardMetricsSDK

/// How well recorded sessions follow their flow: each session of the flow is replayed through a
/// ``FlowNavigator`` (`observe(_:)`), which names every event that is not a legal move. Events are
/// replayed in the order the app recorded them (`seq`), not by corrected time: the correction
/// adds per-event network delay and can swap events the app emitted together.
///
/// **Fitness** of a session, in the spirit of process-mining token replay (each deviation is a
/// token that had to be created or left over to let the recording through):
///
///     fitness = 1 − d / (e + d)
///
/// where `e` is the number of events the navigator judges (step and flow events and highlights —
/// every event except `session_started`, `feature_used`, `experiment_exposure` and `custom`) and
/// `d` the number of deviations found. It is 1 for a session without deviations (also one with no
/// judged events), tends to 0 as deviations dominate, and stays in [0, 1] when one event yields
/// several deviations.
///
/// Build it with ``build(flow:catalog:sessions:options:)`` or
/// ``build(flow:catalog:reader:connection:options:progress:)``; render with ``rendered(_:)``.
public struct ConformanceReport: Sendable, Hashable, Codable {
    /// Summary statistics of per-session fitness.
    public struct FitnessSummary: Sendable, Hashable, Codable {
        /// Mean fitness; `nil` without sessions.
        public var mean: Double?
        /// 10th percentile (type-7 quantile, as ``Quantiles``).
        public var p10: Double?
        /// Median.
        public var median: Double?
        /// 90th percentile.
        public var p90: Double?
    }

    /// Sessions whose fitness lies in `[lower, upper)` (the last bucket includes 1).
    public struct Bucket: Sendable, Hashable, Codable {
        public var lower: Double
        public var upper: Double
        public var sessions: Int
    }

    /// One kind of deviation at one place (flow and step, or highlight id).
    public struct DeviationRow: Sendable, Hashable, Codable {
        public var kind: Deviation.Kind
        public var flowID: String?
        /// The step (or, for `unknownHighlight`, the highlight id).
        public var stepID: String?
        /// How often it occurred.
        public var occurrences: Int
        /// Sessions in which it occurred at least once.
        public var sessions: Int
        /// A few of those sessions (the smallest ids, lowercase), to look up.
        public var exampleSessions: [String]
    }

    public var flowID: String
    public var flowVersion: Int
    public var since: Date?
    public var until: Date?
    /// Sessions of the flow replayed.
    public var sessions: Int
    /// Sessions without any deviation.
    public var perfectlyFitting: Int
    /// `perfectlyFitting / sessions`; `nil` without sessions.
    public var perfectlyFittingShare: Double?
    public var fitness: FitnessSummary
    /// Ten buckets of width 0.1.
    public var histogram: [Bucket]
    /// All deviations found.
    public var deviationCount: Int
    /// By occurrences, most frequent first (ties by kind, flow, step).
    public var deviations: [DeviationRow]
    /// Sessions read that belong to other flows (not replayed).
    public var otherFlowSessions: Int
}

extension ConformanceReport {
    /// Fitness of one session from its judged events and deviations (see the type's documentation).
    public static func fitness(judgedEvents: Int, deviations: Int) -> Double {
        let total = judgedEvents + deviations
        return total == 0 ? 1 : 1 - Double(deviations) / Double(total)
    }
}
