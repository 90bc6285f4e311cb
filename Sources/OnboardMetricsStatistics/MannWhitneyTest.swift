import Foundation

/// The Mann-Whitney U test (Wilcoxon rank-sum): do values of one sample tend to be larger than
/// those of another? A rank test, so it needs no distributional assumption and is not thrown by
/// the long right tail that durations have.
///
/// Two-sided p-value from the normal approximation with the tie correction of the variance and
/// a continuity correction of ½ (SciPy's `mannwhitneyu(..., method="asymptotic")`, R's
/// `wilcox.test(..., exact = FALSE)`): U₁ = R₁ − n₁(n₁ + 1)/2, μ = n₁n₂/2,
/// σ² = n₁n₂/12 · ((N + 1) − Σ(t³ − t) / (N(N − 1))), z = (|U₁ − μ| − ½) / σ.
public struct MannWhitneyTest: Sendable, Hashable, Codable {
    /// U of the first sample: the number of pairs (x, y) with x > y, ties counting ½.
    public var u: Double
    /// The standardised statistic (continuity-corrected, sign of U₁ − μ).
    public var z: Double
    /// Two-sided p-value.
    public var pValue: Double

    /// The test of `first` against `second`; `nil` when either is empty or all values are equal.
    public init?(_ first: [Double], _ second: [Double]) {
        let n1 = first.count
        let n2 = second.count
        guard n1 > 0, n2 > 0 else { return nil }
        // Ranks of the pooled sample, midranks for ties.
        let pooled = (first.map { ($0, true) } + second.map { ($0, false) }).sorted { $0.0 < $1.0 }
        let total = pooled.count
        var rankSum = 0.0
        var tieTerm = 0.0
        var start = 0
        while start < total {
            var end = start + 1
            while end < total, pooled[end].0 == pooled[start].0 { end += 1 }
            let midrank = Double(start + end + 1) / 2
            let ties = Double(end - start)
            tieTerm += ties * ties * ties - ties
            for index in start..<end where pooled[index].1 { rankSum += midrank }
            start = end
        }
        let a = Double(n1)
        let b = Double(n2)
        let nAll = Double(total)
        u = rankSum - a * (a + 1) / 2
        let mean = a * b / 2
        let variance = a * b / 12 * ((nAll + 1) - tieTerm / (nAll * (nAll - 1)))
        guard variance > 0 else { return nil }
        let deviation = u - mean
        let corrected = max(0, abs(deviation) - 0.5)
        z = (deviation < 0 ? -corrected : corrected) / variance.squareRoot()
        pValue = min(1, erfc(corrected / variance.squareRoot() / 2.0.squareRoot()))
    }
}
