/// Benjamini and Hochberg's step-up correction of p-values for multiple comparisons (1995).
public enum BenjaminiHochberg {
    /// Adjusted p-values ("q-values"), in the order given: sorted ascending, the i-th smallest
    /// (1-based) of m is multiplied by m / i; going down from the largest, each adjusted value is
    /// at most the one after it (so rejections stay nested), capped at 1. Rejecting where the
    /// adjusted value is below α controls the false discovery rate — the expected share of false
    /// findings among those reported — at α for independent or positively dependent tests; less
    /// strict than ``Holm``, which controls the chance of any false finding.
    public static func adjust(_ pValues: [Double]) -> [Double] {
        let m = pValues.count
        let order = pValues.indices.sorted { pValues[$0] < pValues[$1] }
        var adjusted = Array(repeating: 1.0, count: m)
        var running = 1.0
        for (rank, index) in order.enumerated().reversed() {
            running = min(running, Double(m) / Double(rank + 1) * pValues[index])
            adjusted[index] = min(1, running)
        }
        return adjusted
    }
}
