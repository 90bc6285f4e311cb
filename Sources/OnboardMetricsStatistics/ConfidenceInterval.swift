/// A two-sided confidence interval for a proportion or a difference of proportions.
///
/// Build one with ``wilson(successes:trials:level:)`` (one proportion) or
/// ``newcombeDifference(successes1:trials1:successes2:trials2:level:)`` (p₁ − p₂).
public struct ConfidenceInterval: Sendable, Hashable, Codable {
    /// The lower bound.
    public var lower: Double
    /// The upper bound.
    public var upper: Double
    /// The confidence level, e.g. 0.95.
    public var level: Double

    /// Creates an interval.
    public init(lower: Double, upper: Double, level: Double) {
        self.lower = lower
        self.upper = upper
        self.level = level
    }

    /// Whether `value` lies within the bounds (inclusive).
    public func contains(_ value: Double) -> Bool { lower <= value && value <= upper }
}
