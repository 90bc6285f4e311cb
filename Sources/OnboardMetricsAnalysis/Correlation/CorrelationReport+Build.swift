import OnboardMetricsStatistics

extension CorrelationAggregator {
    /// A group's rows: every candidate tested, corrected together, sorted both ways.
    static func group(_ counts: GroupCounts, breakdown: String?, options: CorrelationOptions) -> CorrelationReport.Group
    {
        let total = (successes: counts.successes, failures: counts.failures)
        // A candidate every settled unit has (the breakdown's own value, a step's condition) tells
        // nothing and cannot be tested; PostHog's prior would still give it an odds ratio of (S+1)/(F+1).
        let candidates = counts.candidates.filter {
            $0.value.successes < total.successes || $0.value.failures < total.failures
        }.keys.sorted()
        var rows = candidates.map { candidate -> CorrelationReport.Row in
            let pair = counts.candidates[candidate] ?? Pair()
            return CorrelationReport.Row(
                kind: candidate.kind, name: candidate.name, successes: pair.successes, failures: pair.failures,
                oddsRatio: oddsRatio(
                    s: pair.successes, f: pair.failures, successes: total.successes, failures: total.failures),
                pValue: FisherExactTest.twoSidedPValue(
                    pair.successes, total.successes - pair.successes, pair.failures, total.failures - pair.failures)
                    ?? 1,
                adjustedPValue: 1, significant: false)
        }
        let adjusted = options.correction.adjust(rows.map(\.pValue))
        for index in rows.indices {
            rows[index].adjustedPValue = adjusted[index]
            rows[index].significant = adjusted[index] < options.alpha
        }
        let limit = options.top > 0 ? options.top : rows.count
        // Ties on the odds ratio: the stronger evidence first, then by name, so the lists are stable.
        let positive = rows.filter { $0.oddsRatio > 1 }.sorted {
            ($1.oddsRatio, $0.pValue, $0.kind, $0.name) < ($0.oddsRatio, $1.pValue, $1.kind, $1.name)
        }
        let negative = rows.filter { $0.oddsRatio < 1 }.sorted {
            ($0.oddsRatio, $0.pValue, $0.kind, $0.name) < ($1.oddsRatio, $1.pValue, $1.kind, $1.name)
        }
        let settled = total.successes + total.failures
        let share = settled == 0 ? nil : Double(total.successes) / Double(settled)
        return CorrelationReport.Group(
            breakdown: breakdown, successes: total.successes, failures: total.failures, inProgress: counts.inProgress,
            notEntered: counts.notEntered, successShare: share, candidatesTested: rows.count,
            significant: rows.filter(\.significant).count,
            warnings: warnings(successes: total.successes, failures: total.failures, share: share, options: options),
            positive: Array(positive.prefix(limit)), negative: Array(negative.prefix(limit)))
    }

    /// PostHog's odds ratio with a prior of one success and one failure in each cell:
    /// `((s+1)·(F−f+1)) / ((S−s+1)·(f+1))`.
    static func oddsRatio(s: Int, f: Int, successes: Int, failures: Int) -> Double {
        (Double(s + 1) * Double(failures - f + 1)) / (Double(successes - s + 1) * Double(f + 1))
    }

    private static func warnings(successes: Int, failures: Int, share: Double?, options: CorrelationOptions)
        -> [String]
    {
        var warnings: [String] = []
        if successes < options.minimumUnits || failures < options.minimumUnits {
            warnings.append(
                "too few units: \(successes) successes and \(failures) failures (fewer than \(options.minimumUnits) "
                    + "on a side): only strong associations can show, and the odds ratios are unstable")
        }
        if let share, !options.balancedShare.contains(share) {
            warnings.append(
                "skewed sample: \(NumberText.percent(share)) succeeded (outside "
                    + "\(NumberText.percent(options.balancedShare.lowerBound))–"
                    + "\(NumberText.percent(options.balancedShare.upperBound))): the rarer outcome has few units, "
                    + "and the odds ratios of candidates common on the other side are unstable")
        }
        return warnings
    }
}
