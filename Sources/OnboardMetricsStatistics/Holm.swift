/// Holm's step-down correction of p-values for multiple comparisons (Holm 1979).
public enum Holm {
    /// Adjusted p-values, in the order given: sorted ascending, the i-th smallest (0-based) of m is
    /// multiplied by m − i, each adjusted value is at least the one before it (so rejections stay
    /// nested), capped at 1. Rejecting where the adjusted value is below α controls the
    /// family-wise error rate at α with no assumption about dependence, and is uniformly more
    /// powerful than Bonferroni.
    public static func adjust(_ pValues: [Double]) -> [Double] {
        let m = pValues.count
        let order = pValues.indices.sorted { pValues[$0] < pValues[$1] }
        var adjusted = Array(repeating: 1.0, count: m)
        var running = 0.0
        for (rank, index) in order.enumerated() {
            running = max(running, min(1, Double(m - rank) * pValues[index]))
            adjusted[index] = running
        }
        return adjusted
    }
}
