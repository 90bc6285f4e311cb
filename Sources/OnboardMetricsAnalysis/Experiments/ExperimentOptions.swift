import Foundation
import OnboardMetricsReader
import OnboardMetricsSDK
import OnboardMetricsStatistics

/// What `funnel experiment` analyses and how.
public struct ExperimentOptions: Sendable, Hashable {
    /// What counts as a conversion.
    public enum Metric: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The unit completed the flow (`flow_completed`).
        case completion
        /// The unit completed step ID (`step_completed`; a skip is not a completion).
        case step(String)
        /// The unit used FEATURE (`feature_used`); units that used it before their exposure
        /// already knew it and leave the denominator, as in the discovery report.
        case discovery(String)
        /// The unit viewed step ID (`step_viewed`); every exposed unit is in the denominator
        /// (a step of `funnel:FLOW`).
        case reached(String)
        /// The unit completed flow ID (`flow_completed` of that flow); every exposed unit is in the
        /// denominator (the last step of `funnel:FLOW`).
        case finished(String)
        /// Every step of flow ID, each over all exposed units (GrowthBook's funnel metric with one
        /// denominator); expanded into ``reached(_:)`` and ``finished(_:)`` by
        /// ``ExperimentOptions/expand(funnel:)`` before the read.
        case funnel(String)

        /// Parses `completion`, `step:ID`, `discovery:FEATURE`, `reached:ID`, `completion:FLOW` or `funnel:FLOW`.
        /// - Throws: ``ExperimentError`` `.invalidMetric`.
        public init(parsing text: String) throws {
            if text == "completion" {
                self = .completion
                return
            }
            let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[1].isEmpty else {
                throw ExperimentError(
                    .invalidMetric,
                    "metric '\(text)' is not completion, step:ID, discovery:FEATURE or funnel:FLOW")
            }
            switch parts[0] {
            case "step": self = .step(parts[1])
            case "discovery": self = .discovery(parts[1])
            case "reached": self = .reached(parts[1])
            case "completion": self = .finished(parts[1])
            case "funnel": self = .funnel(parts[1])
            default:
                throw ExperimentError(
                    .invalidMetric,
                    "metric '\(text)' is not completion, step:ID, discovery:FEATURE or funnel:FLOW")
            }
        }

        public var description: String {
            switch self {
            case .completion: "completion"
            case .step(let id): "step:\(id)"
            case .discovery(let feature): "discovery:\(feature)"
            case .reached(let id): "reached:\(id)"
            case .finished(let flow): "completion:\(flow)"
            case .funnel(let flow): "funnel:\(flow)"
            }
        }

        public init(from decoder: any Decoder) throws {
            try self.init(parsing: try decoder.singleValueContainer().decode(String.self))
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(description)
        }
    }

    /// Which verdict the text, CSV and Markdown output lead with (JSON always holds both).
    public enum Engine: String, Sendable, Hashable, Codable, CaseIterable {
        case frequentist, bayesian
    }

    /// The experiment key (`name` of the `experiment_exposure` events).
    public var key: String
    /// The metrics; Holm's correction runs across all their comparisons.
    public var metrics: [Metric] = [.completion]
    public var engine: Engine = .frequentist
    /// Sessions or users. Per user, a user's exposed sessions are merged; users exposed to more
    /// than one variant are counted apart and left out.
    public var unit: FunnelOptions.Unit = .session
    /// Minimum detectable effect, absolute (0.02 = 2 percentage points), for the power analysis.
    public var mde = 0.02
    /// Significance level of the tests and the power analysis (two-sided).
    public var alpha = 0.05
    /// Power of the power analysis.
    public var power = 0.8
    /// Conversions count within this time after the exposure.
    public var window: TimeInterval = 7 * 86_400
    /// Only units exposed at or after this instant.
    public var since: Date?
    /// Only units exposed before this instant.
    public var until: Date?
    /// When set, only sessions of this flow count, step metrics must name one of its steps, and a
    /// step metric's denominator holds only the sessions whose context the step applies to.
    public var flow: FlowDefinition?
    /// The stored definition, when there is one: its variant order (control first) and weights
    /// (the expected split of the sample-ratio-mismatch test). Without it, "control" (or else the
    /// first name in order) is the control and equal shares are expected.
    public var experiment: ExperimentDefinition?

    /// The funnels asked for with `funnel:FLOW`, once expanded: each flow's steps and the indices
    /// of their metrics in ``metrics``.
    public var funnels: [FunnelMetric] = []

    /// A `funnel:FLOW` metric expanded into one metric per step and the flow's completion.
    public struct FunnelMetric: Sendable, Hashable {
        public var flowID: String
        /// The flow's step ids, then "completion".
        public var steps: [String]
        /// Where each step's metric sits in ``ExperimentOptions/metrics``.
        public var metricIndices: [Int]
        /// Per step, whether it applies only under a condition (not every unit passes it).
        public var conditional: [Bool]
    }

    /// Replaces `funnel:FLOW` in ``metrics`` by `reached:STEP` for each step of `flow` and
    /// `completion:FLOW`, and records them in ``funnels``.
    public mutating func expand(funnel flow: FlowDefinition) {
        guard let position = metrics.firstIndex(of: .funnel(flow.id)) else { return }
        let expanded = flow.steps.map { Metric.reached($0.id) } + [.finished(flow.id)]
        metrics.replaceSubrange(position...position, with: expanded)
        for index in funnels.indices {
            funnels[index].metricIndices = funnels[index].metricIndices.map {
                $0 > position ? $0 + expanded.count - 1 : $0
            }
        }
        funnels.append(
            FunnelMetric(
                flowID: flow.id, steps: flow.steps.map(\.id) + ["completion"],
                metricIndices: Array(position..<(position + expanded.count)),
                conditional: flow.steps.map { $0.when != nil } + [false]))
    }

    /// Sequential testing: intervals and p-values that stay valid however often the results are
    /// looked at (``MixtureSequentialTest``); Holm's adjustment and `significant` then use them.
    public var sequential = false
    /// N* of the sequential test: the total units at which its interval is tightest.
    public var sequentialTuning = MixtureSequentialTest.defaultTuning

    /// Options for an experiment key.
    public init(key: String) { self.key = key }

    /// A reader that keeps sessions open long enough for conversions within the window.
    public var reader: SessionReader {
        SessionReader(since: since, until: until.map { $0.addingTimeInterval(window) }, closeAfter: window + 3_600)
    }
}
