import Foundation

/// Fisher's exact test of a 2×2 table `[[a, b], [c, d]]`: whether the row and the column
/// attributes are independent, given the table's margins.
public enum FisherExactTest {
    /// The two-sided p-value: the sum of the hypergeometric probabilities of every table with the
    /// same margins that is no more probable than the observed one (the standard definition, as
    /// SciPy's `fisher_exact`, with its relative tolerance of 1e-7 so that tables equally probable
    /// up to rounding count as equal). Probabilities are computed in log space (`lgamma`), and each
    /// tail is summed outward from its boundary until its terms no longer change the sum, so counts
    /// in the millions neither overflow nor take time proportional to the count.
    /// - Returns: a value in [0, 1]; 1 for a table with a zero margin (nothing to test). `nil` for
    ///   a negative count.
    public static func twoSidedPValue(_ a: Int, _ b: Int, _ c: Int, _ d: Int) -> Double? {
        guard a >= 0, b >= 0, c >= 0, d >= 0 else { return nil }
        let distribution = Hypergeometric(row1: a + b, row2: c + d, column1: a + c)
        guard a + b > 0, c + d > 0, a + c > 0, b + d > 0 else { return 1 }
        let threshold = distribution.logProbability(a) + log1p(1e-7)
        let mode = distribution.mode
        var total = 0.0
        // Left of the mode the probabilities rise: the tables at most as probable are lo...boundary.
        if let boundary = lastIndex(
            in: distribution.low...mode, where: { distribution.logProbability($0) <= threshold })
        {
            total += distribution.tailSum(from: boundary, step: -1)
        }
        // Right of the mode they fall: boundary...hi.
        if mode < distribution.high,
            let boundary = firstIndex(
                in: (mode + 1)...distribution.high, where: { distribution.logProbability($0) <= threshold })
        {
            total += distribution.tailSum(from: boundary, step: 1)
        }
        return min(1, total)
    }

    /// The last x of a range whose prefix satisfies `test` (true then false); nil when none does.
    private static func lastIndex(in range: ClosedRange<Int>, where test: (Int) -> Bool) -> Int? {
        guard test(range.lowerBound) else { return nil }
        var low = range.lowerBound
        var high = range.upperBound
        while low < high {
            let middle = low + (high - low + 1) / 2
            if test(middle) { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The first x of a range whose suffix satisfies `test` (false then true); nil when none does.
    private static func firstIndex(in range: ClosedRange<Int>, where test: (Int) -> Bool) -> Int? {
        guard test(range.upperBound) else { return nil }
        var low = range.lowerBound
        var high = range.upperBound
        while low < high {
            let middle = low + (high - low) / 2
            if test(middle) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

/// The hypergeometric distribution of the top-left cell of a 2×2 table with fixed margins.
struct Hypergeometric {
    let row1: Int
    let row2: Int
    let column1: Int
    let low: Int
    let high: Int
    private let logDenominator: Double

    init(row1: Int, row2: Int, column1: Int) {
        self.row1 = row1
        self.row2 = row2
        self.column1 = column1
        low = max(0, column1 - row2)
        high = min(row1, column1)
        logDenominator = Self.logChoose(row1 + row2, column1)
    }

    /// The most probable value (the lower one of two equal modes), within the support.
    var mode: Int {
        let n = Double(row1 + row2)
        let value = Int(((Double(row1) + 1) * (Double(column1) + 1) / (n + 2)).rounded(.down))
        return min(high, max(low, value))
    }

    func logProbability(_ x: Int) -> Double {
        Self.logChoose(row1, x) + Self.logChoose(row2, column1 - x) - logDenominator
    }

    /// P(x = start) + P(x = start + step) + …, to the end of the support, stopping once the terms
    /// (which fall away from the mode) are too small to change the sum.
    func tailSum(from start: Int, step: Int) -> Double {
        var sum = 0.0
        var x = start
        while x >= low, x <= high {
            let term = exp(logProbability(x))
            sum += term
            if term <= sum * 1e-17 { break }
            x += step
        }
        return sum
    }

    static func logChoose(_ n: Int, _ k: Int) -> Double {
        lgamma(Double(n) + 1) - lgamma(Double(k) + 1) - lgamma(Double(n - k) + 1)
    }
}
