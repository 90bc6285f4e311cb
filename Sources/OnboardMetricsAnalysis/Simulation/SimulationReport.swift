import Foundation
import OnboardMetricsStatistics

/// A forecast of a candidate flow from recorded sessions of the baseline flow: per step and in
/// total, with bootstrap intervals, the back-test of the baseline, the size of an A/B test that
/// would confirm the change, and the assumptions the model makes.
///
/// Build it with ``SimulationReport/build(options:sessions:now:)`` or
/// ``SimulationReport/build(options:reader:connection:now:progress:)``; render it with
/// ``rendered(_:)`` or ``html()``. JSON keys are stable snake_case (documented in the README).
public struct SimulationReport: Sendable, Hashable, Codable {
    /// Which sessions were read and which were used.
    public struct DataSummary: Sendable, Hashable, Codable {
        /// Sessions read from the data.
        public var sessionsRead = 0
        /// Finished sessions of the baseline flow and version the forecast uses.
        public var sessions = 0
        /// Their users (the bootstrap's clusters).
        public var users = 0
        /// Sessions of the baseline still in progress at the end of the data (not used).
        public var inProgressSessions = 0
        /// Sessions of other flows, or outside the time range.
        public var otherSessions = 0
        /// Sessions of another version of the baseline flow.
        public var otherVersionSessions = 0
        /// Sessions not exposed to the chosen variant.
        public var otherVariantSessions = 0
    }

    /// A value and its bootstrap interval.
    public struct Estimate: Sendable, Hashable, Codable {
        public var value: Double?
        public var interval: ConfidenceInterval?
    }

    /// The baseline's recorded numbers for a step.
    public struct ObservedStep: Sendable, Hashable, Codable {
        /// Sessions whose baseline conditions put the step on their path.
        public var eligible: Int
        /// Sessions that viewed it.
        public var viewed: Int
        /// Viewed, among eligible.
        public var conversionFromStart: Double?
        /// Share of viewers who went on (did not drop there).
        public var continuationRate: Double?
        /// Median seconds on the step.
        public var timeOnStepMedian: Double?
    }

    /// The forecast for one step of the candidate.
    public struct StepForecast: Sendable, Hashable, Codable {
        public var step: String
        /// The step's condition in the candidate, if any.
        public var condition: String?
        /// Where its behaviour comes from: `recorded` or `assumed`.
        public var source: String
        /// Sessions whose candidate path holds the step.
        public var eligible: Int
        /// Expected sessions viewing it.
        public var viewed: Double
        /// Expected viewed among eligible, with its interval.
        public var conversionFromStart: Estimate
        /// Expected sessions dropping here.
        public var droppedHere: Double
        /// Expected sessions skipping it.
        public var skipped: Double
        /// Share of viewers expected to go on.
        public var continuationRate: Double?
        /// The baseline's numbers, when the baseline has the step.
        public var observed: ObservedStep?
    }

    /// The baseline flow simulated with the same model, against what was recorded.
    public struct BackTest: Sendable, Hashable, Codable {
        /// Simulated completion of the baseline, with its interval.
        public var forecastCompletion: Estimate
        /// Recorded completion.
        public var observedCompletion: Double?
        /// Whether the recorded completion lies within the simulated interval.
        public var withinInterval: Bool
    }

    public var candidateFlowID: String
    public var candidateFlowVersion: Int
    public var baselineFlowID: String
    public var baselineFlowVersion: Int
    /// The experiment variant the data was restricted to, if any.
    public var variant: SimulationOptions.VariantFilter?
    /// The context attribute behaviour was stratified by, if any.
    public var stratify: String?
    /// Strata (combinations of baseline conditions and the attribute).
    public var strata: Int
    public var data: DataSummary
    public var draws: Int
    public var seed: UInt64
    public var level: Double
    /// Forecast completion of the candidate.
    public var forecastCompletion: Estimate
    /// Recorded completion of the baseline (interval: the bootstrap's).
    public var observedCompletion: Estimate
    /// Forecast minus recorded completion, with the interval of the paired draws.
    public var completionDelta: Estimate
    public var backTest: BackTest
    /// Sessions per arm an A/B test needs to detect the forecast delta (at `alpha`, `power`).
    public var sampleSizePerArm: Int?
    public var alpha: Double
    public var power: Double
    /// The candidate's steps.
    public var steps: [StepForecast]
    /// Baseline steps the candidate does not have.
    public var removedSteps: [String]
    /// The model's assumptions, in words.
    public var assumptions: [String]
}
