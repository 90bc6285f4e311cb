/// How a family of p-values is corrected for being tested together.
public enum MultipleComparisonCorrection: String, Sendable, Hashable, Codable, CaseIterable {
    /// Holm's step-down method: controls the family-wise error rate (the chance of any false finding).
    case holm
    /// Benjamini–Hochberg: controls the false discovery rate (the expected share of false findings).
    case bh

    /// The adjusted p-values, in the order given.
    public func adjust(_ pValues: [Double]) -> [Double] {
        switch self {
        case .holm: Holm.adjust(pValues)
        case .bh: BenjaminiHochberg.adjust(pValues)
        }
    }
}
