import Foundation

/// An ad-hoc funnel's result: per step, how many units (sessions or users) reached at least that
/// step, conversion, and time to convert. Build it with ``AdHocFunnel/build(sessions:)`` or
/// ``AdHocFunnel/build(reader:connection:progress:)``; render it with ``rendered(_:)``.
///
/// JSON (``ReportJSON``, sorted snake_case keys): `steps`, `order`, `unit`, `window_seconds`,
/// `units`, and `rows`, each with `step`, `count`, `conversion_from_previous`,
/// `conversion_from_start`, `time_to_convert` and `time_from_start` (`count`, `median`, `p90`,
/// seconds; absent values are omitted).
public struct AdHocFunnelReport: Sendable, Hashable, Codable {
    /// One step of the funnel.
    public struct Row: Sendable, Hashable, Codable {
        /// The step name; in any order, "any k of n".
        public var step: String
        /// Units whose furthest step is this one or a later one.
        public var count: Int
        /// `count` over the previous row's; `nil` for the first step or when the previous count is 0.
        public var conversionFromPrevious: Double?
        /// `count` over the first row's; `nil` when that is 0.
        public var conversionFromStart: Double?
        /// From the previous step to this one, within each unit's reported chain (none for step 1).
        public var timeToConvert: DurationSummary
        /// From the chain's first step to this one.
        public var timeFromStart: DurationSummary
    }

    /// The step names as given.
    public var steps: [String]
    public var order: AdHocFunnel.Order
    public var unit: FunnelOptions.Unit
    public var windowSeconds: Double
    /// Units read (sessions, or users), whether or not they reached step 1.
    public var units: Int
    public var rows: [Row]
}
