import OnboardMetricsStatistics

/// Discovery against a randomized holdout: units exposed to an experiment whose holdout variant
/// is never shown the highlight (the app skips it), compared with the units of the other variants.
///
/// Intention to treat: every exposed unit counts in its arm, shown or not (the share of treated
/// units actually shown is given beside). Per highlight H of feature F, in each arm: units
/// exposed; "already knew" (used F before their exposure; they leave the denominator); eligible;
/// discovered (used F within the window after the exposure); the rate with its Wilson interval.
/// The difference treated − holdout carries Newcombe's interval and the pooled two-proportion
/// z-test's p-value: unlike the observational baseline, a causal estimate of what showing H does.
public struct DiscoveryHoldout: Sendable, Hashable, Codable {
    /// One arm's counts for a feature.
    public struct Arm: Sendable, Hashable, Codable {
        public var units: Int
        public var alreadyKnew: Int
        public var eligible: Int
        public var discovered: Int
        public var rate: Double?
        public var interval: ConfidenceInterval?
    }

    /// One highlight's comparison.
    public struct Row: Sendable, Hashable, Codable {
        public var highlight: String
        public var feature: String?
        public var treated: Arm
        public var holdout: Arm
        /// Treated units shown the highlight / treated units.
        public var shownAmongTreated: Double?
        /// treated rate − holdout rate.
        public var difference: Double?
        /// Newcombe's interval of the difference.
        public var interval: ConfidenceInterval?
        /// Two-sided p-value of the pooled two-proportion z-test.
        public var pValue: Double?
    }

    public var experiment: String
    /// The variant that is never shown the highlight.
    public var holdoutVariant: String
    /// Every other variant seen.
    public var treatedVariants: [String]
    public var rows: [Row]
}
