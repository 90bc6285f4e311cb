import OnboardMetricsSDK

/// The known parameters of synthetic sessions: who starts which flow with which context, how
/// people behave on each step, highlights, an experiment, timing and transport faults.
///
/// Written as JSON beside generated data so tests can check that the analyzer recovers them.
/// Per-step probabilities are *given the step is viewed for the first time*:
/// `drop` ends the session there (no further flow events), `skip` skips (skippable steps only),
/// anything else continues; `back` is the chance of going back once to the previous step (and
/// straight forward again) before deciding.
public struct BehaviourModel: Codable, Sendable, Hashable {
    /// A flow sessions start with, and its weight among entries.
    public struct Entry: Codable, Sendable, Hashable {
        /// The root flow id.
        public var flow: String
        /// Relative weight among entries.
        public var weight: Double
        /// Context attributes fixed for sessions of this entry (override sampled ones).
        public var context: [String: JSONValue]

        /// Creates an entry.
        public init(flow: String, weight: Double = 1, context: [String: JSONValue] = [:]) {
            self.flow = flow
            self.weight = weight
            self.context = context
        }
    }

    /// A context attribute with weighted values.
    public struct Attribute: Codable, Sendable, Hashable {
        /// The attribute name.
        public var name: String
        /// The values it takes.
        public var values: [JSONValue]
        /// Their relative weights (same length as `values`).
        public var weights: [Double]

        /// Creates an attribute.
        public init(_ name: String, values: [JSONValue], weights: [Double]) {
            self.name = name
            self.values = values
            self.weights = weights
        }
    }

    /// Behaviour that differs by context: the first rule whose condition holds replaces the
    /// step's base probabilities that it sets.
    public struct Rule: Codable, Sendable, Hashable {
        /// The condition over the session context.
        public var when: Condition
        /// Replacement drop probability.
        public var drop: Double?
        /// Replacement skip probability.
        public var skip: Double?

        /// Creates a rule.
        public init(when: Condition, drop: Double? = nil, skip: Double? = nil) {
            self.when = when
            self.drop = drop
            self.skip = skip
        }
    }

    /// Behaviour on one step.
    public struct StepBehaviour: Codable, Sendable, Hashable {
        /// The flow id.
        public var flow: String
        /// The step id.
        public var step: String
        /// Probability of ending the session on this step.
        public var drop: Double
        /// Probability of skipping it (when skippable).
        public var skip: Double
        /// Probability of going back once before deciding (not on a flow's first step).
        public var back: Double
        /// Median seconds on the step (log-normal).
        public var medianSeconds: Double
        /// Log-space standard deviation of the time on step.
        public var sigma: Double
        /// Declared jumps taken instead of continuing: step id → probability.
        public var jumps: [String: Double]
        /// Probability of opening a custom screen (`showCustom`) while on the step.
        public var customScreen: Double
        /// Context-dependent replacements of `drop` / `skip`.
        public var rules: [Rule]

        /// Creates step behaviour.
        public init(
            flow: String, step: String, drop: Double, skip: Double = 0, back: Double = 0, medianSeconds: Double = 8,
            sigma: Double = 0.6, jumps: [String: Double] = [:], customScreen: Double = 0, rules: [Rule] = []
        ) {
            self.flow = flow
            self.step = step
            self.drop = drop
            self.skip = skip
            self.back = back
            self.medianSeconds = medianSeconds
            self.sigma = sigma
            self.jumps = jumps
            self.customScreen = customScreen
            self.rules = rules
        }

        /// The (drop, skip) probabilities for `context`.
        public func probabilities(for context: [String: JSONValue]) -> (drop: Double, skip: Double) {
            for rule in rules where rule.when.evaluate(context) {
                return (rule.drop ?? drop, rule.skip ?? skip)
            }
            return (drop, skip)
        }
    }

    /// A highlight's behaviour.
    public struct HighlightBehaviour: Codable, Sendable, Hashable {
        /// The highlight id (declared by a step of the flow).
        public var highlight: String
        /// The feature it points at.
        public var feature: String
        /// Probability it is shown when its step is viewed.
        public var show: Double
        /// Dismiss reason → weight.
        public var reasons: [String: Double]
        /// Dismiss reason → probability of using the feature later.
        public var useAfter: [String: Double]
        /// Probability of having used the feature before the highlight was shown ("already knew").
        public var alreadyKnew: Double
        /// Probability of using the feature without ever being shown the highlight (baseline).
        public var organic: Double
        /// Median hours from the showing (or session start) to the use (log-normal, sigma 1).
        public var medianHoursToUse: Double

        /// Creates highlight behaviour.
        public init(
            highlight: String, feature: String, show: Double, reasons: [String: Double], useAfter: [String: Double],
            alreadyKnew: Double, organic: Double, medianHoursToUse: Double
        ) {
            self.highlight = highlight
            self.feature = feature
            self.show = show
            self.reasons = reasons
            self.useAfter = useAfter
            self.alreadyKnew = alreadyKnew
            self.organic = organic
            self.medianHoursToUse = medianHoursToUse
        }
    }

    /// An experiment with a true effect on one step's drop probability.
    public struct Experiment: Codable, Sendable, Hashable {
        /// The experiment key (`name` of `experiment_exposure`).
        public var key: String
        /// The flow whose sessions are exposed.
        public var flow: String
        /// The step whose drop probability the variant changes.
        public var step: String
        /// Variant names; the first is the control.
        public var variants: [String]
        /// Their assignment weights.
        public var weights: [Double]
        /// Added to the step's drop probability per variant (the true effect; 0 for control).
        public var dropDelta: [Double]

        /// Creates an experiment.
        public init(
            key: String, flow: String, step: String, variants: [String], weights: [Double], dropDelta: [Double]
        ) {
            self.key = key
            self.flow = flow
            self.step = step
            self.variants = variants
            self.weights = weights
            self.dropDelta = dropDelta
        }
    }

    /// When sessions happen.
    public struct Timing: Codable, Sendable, Hashable {
        /// Start of the period (ISO 8601).
        public var start: String
        /// Length of the period in days; the data ends at `start + days`.
        public var days: Int
        /// Share of sessions started in the last `inProgressMinutes` before the end, cut off there.
        public var inProgressShare: Double
        /// See `inProgressShare`.
        public var inProgressMinutes: Double

        /// Creates timing.
        public init(start: String, days: Int, inProgressShare: Double, inProgressMinutes: Double) {
            self.start = start
            self.days = days
            self.inProgressShare = inProgressShare
            self.inProgressMinutes = inProgressMinutes
        }
    }

    /// Transport faults, as recorders see them.
    public struct Faults: Codable, Sendable, Hashable {
        /// Per event: written twice (same event id), as after a retried batch.
        public var duplicate: Double
        /// Per event: sent 1–48 hours late and written at the end of the file.
        public var late: Double
        /// Per session: two adjacent lines swapped in the file (seq and times unchanged).
        public var outOfOrder: Double
        /// Per session: the client clock is off by up to ±2 hours (occurred_at and sent_at shifted,
        /// received_at true), so the skew correction recovers the true time.
        public var clockSkew: Double

        /// Creates faults.
        public init(duplicate: Double, late: Double, outOfOrder: Double, clockSkew: Double) {
            self.duplicate = duplicate
            self.late = late
            self.outOfOrder = outOfOrder
            self.clockSkew = clockSkew
        }

        /// No faults.
        public static let none = Faults(duplicate: 0, late: 0, outOfOrder: 0, clockSkew: 0)
    }

    /// Root flows sessions start with.
    public var entries: [Entry]
    /// Sampled context attributes.
    public var context: [Attribute]
    /// Behaviour per step; steps not listed use `defaultStep`'s numbers.
    public var steps: [StepBehaviour]
    /// Behaviour of steps not listed in `steps` (its flow and step fields are ignored).
    public var defaultStep: StepBehaviour
    /// Highlights.
    public var highlights: [HighlightBehaviour]
    /// The experiment, if any.
    public var experiment: Experiment?
    /// Timing.
    public var timing: Timing
    /// Transport faults.
    public var faults: Faults
    /// Share of sessions by a user who already had an earlier session.
    public var repeatUser: Double
    /// Share of drops that end with an explicit `flow_abandoned` (the rest just stop).
    public var abandonEvent: Double

    /// Creates a model.
    public init(
        entries: [Entry], context: [Attribute], steps: [StepBehaviour], defaultStep: StepBehaviour,
        highlights: [HighlightBehaviour] = [], experiment: Experiment? = nil, timing: Timing, faults: Faults,
        repeatUser: Double, abandonEvent: Double
    ) {
        self.entries = entries
        self.context = context
        self.steps = steps
        self.defaultStep = defaultStep
        self.highlights = highlights
        self.experiment = experiment
        self.timing = timing
        self.faults = faults
        self.repeatUser = repeatUser
        self.abandonEvent = abandonEvent
    }

    /// The behaviour of `step` of `flow`.
    public func behaviour(flow: String, step: String) -> StepBehaviour {
        steps.first { $0.flow == flow && $0.step == step } ?? defaultStep
    }
}
