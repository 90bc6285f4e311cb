/// Quantiles of a sample, by linear interpolation between order statistics (Hyndman & Fan's
/// type 7, the default of R, NumPy and spreadsheet PERCENTILE), so reports agree with those tools.
public enum Quantiles {
    /// The `q`-quantile (0...1) of `values`; `nil` for an empty sample.
    public static func quantile(_ values: [Double], _ q: Double) -> Double? {
        quantiles(values, [q])[0]
    }

    /// The `q`-quantile of values already sorted ascending.
    public static func quantile(sorted values: [Double], _ q: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let position = q * Double(values.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, values.count - 1)
        return values[lower] + (values[upper] - values[lower]) * (position - Double(lower))
    }
}

/// The median and 90th percentile of a set of durations, in seconds.
public struct DurationSummary: Sendable, Hashable, Codable {
    /// How many durations.
    public var count: Int
    /// The median, `nil` when there are none.
    public var median: Double?
    /// The 90th percentile, `nil` when there are none.
    public var p90: Double?

    /// The quantiles a summary reports.
    static let quantiles = [0.5, 0.9]

    /// Summarizes durations in seconds.
    public init(_ seconds: [Double]) {
        self.init(count: seconds.count, quantiles: Quantiles.quantiles(seconds, Self.quantiles))
    }

    /// A summary of `count` durations from their ``quantiles``, in that order.
    init(count: Int, quantiles: [Double?]) {
        self.count = count
        median = quantiles[0]
        p90 = quantiles[1]
    }
}
