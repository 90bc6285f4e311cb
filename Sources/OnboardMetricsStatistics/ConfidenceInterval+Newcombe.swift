extension ConfidenceInterval {
    /// A confidence interval for the difference p₁ − p₂ of two independent proportions by
    /// Newcombe's hybrid score method (method 10 of Newcombe 1998), built from the Wilson
    /// intervals (l₁, u₁) and (l₂, u₂) of each proportion:
    ///
    ///     lower = d − √((p₁ − l₁)² + (u₂ − p₂)²)
    ///     upper = d + √((u₁ − p₁)² + (p₂ − l₂)²),   d = p₁ − p₂
    ///
    /// It inherits Wilson's good coverage for small samples and extreme rates, where the Wald
    /// interval for a difference fails. `nil` when either proportion has no interval (no trials,
    /// impossible counts) or `level` is outside (0, 1).
    public static func newcombeDifference(
        successes1: Int, trials1: Int, successes2: Int, trials2: Int, level: Double = 0.95
    ) -> ConfidenceInterval? {
        guard let first = wilson(successes: successes1, trials: trials1, level: level),
            let second = wilson(successes: successes2, trials: trials2, level: level)
        else { return nil }
        let p1 = Double(successes1) / Double(trials1)
        let p2 = Double(successes2) / Double(trials2)
        let difference = p1 - p2
        let below = ((p1 - first.lower) * (p1 - first.lower) + (second.upper - p2) * (second.upper - p2)).squareRoot()
        let above = ((first.upper - p1) * (first.upper - p1) + (p2 - second.lower) * (p2 - second.lower)).squareRoot()
        return ConfidenceInterval(
            lower: max(-1, difference - below), upper: min(1, difference + above), level: level)
    }
}
