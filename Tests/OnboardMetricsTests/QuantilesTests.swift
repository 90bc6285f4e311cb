import Testing

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStatistics

@Suite struct QuantilesTests {
    // Reference values from NumPy 2.4 (np.percentile, default linear method = Hyndman & Fan type 7).
    @Test(arguments: [
        ([1.0, 2, 3, 4, 10], 0.5, 3.0), ([1.0, 2, 3, 4, 10], 0.9, 7.6),
        ([5.0, 7.0], 0.5, 6.0), ([5.0, 7.0], 0.9, 6.8),
        ([2.5], 0.5, 2.5), ([2.5], 0.9, 2.5),
        ([3.0, 1, 4, 1, 5, 9, 2, 6], 0.5, 3.5), ([3.0, 1, 4, 1, 5, 9, 2, 6], 0.9, 6.9),
    ])
    func matchesNumPy(values: [Double], q: Double, expected: Double) throws {
        let value = try #require(Quantiles.quantile(values, q))
        #expect(abs(value - expected) < 1e-9)
    }

    @Test func emptySampleHasNoQuantile() {
        #expect(Quantiles.quantile([], 0.5) == nil)
        #expect(Quantiles.quantiles([], [0.5, 0.9]) == [nil, nil])
        let summary = DurationSummary([])
        #expect(summary.count == 0 && summary.median == nil && summary.p90 == nil)
    }

    static let levels = [0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1]

    /// Samples of every shape selection has trouble with: duplicates, runs already in order or
    /// reversed, organ pipes, alternations, one value repeated.
    static func samples() -> [(String, [Double])] {
        var random = SplitMix64(seed: 16)
        var samples: [(String, [Double])] = []
        for count in [1, 2, 3, 4, 5, 7, 8, 16, 31, 100, 257, 1_000, 10_001] {
            samples.append(("random \(count)", (0..<count).map { _ in Double(random.next() % 1_000_000) / 1000 }))
            samples.append(("few values \(count)", (0..<count).map { _ in Double(random.next() % 4) }))
            samples.append(("ascending \(count)", (0..<count).map(Double.init)))
            samples.append(("descending \(count)", (0..<count).reversed().map(Double.init)))
            samples.append(("organ pipe \(count)", (0..<count).map { Double(min($0, count - $0)) }))
            samples.append(("alternating \(count)", (0..<count).map { $0 % 2 == 0 ? Double($0) : -Double($0) }))
            samples.append(("constant \(count)", Array(repeating: 2.5, count: count)))
        }
        return samples
    }

    /// Selection against the second method, sorting the whole sample: the same values exactly.
    @Test func selectionGivesTheValuesSortingGives() throws {
        for (name, sample) in Self.samples() {
            let sorted = sample.sorted()
            let selected = Quantiles.quantiles(sample, Self.levels)
            #expect(selected == Self.levels.map { Quantiles.quantile(sorted: sorted, $0) }, "\(name)")
            let summary = DurationSummary(sample)
            #expect(summary.count == sample.count)
            #expect(summary.median == Quantiles.quantile(sorted: sorted, 0.5), "\(name)")
            #expect(summary.p90 == Quantiles.quantile(sorted: sorted, 0.9), "\(name)")
        }
    }

    /// Many samples at once (side by side when large): each summary is the one sorting gives.
    @Test func summariesOfManySamplesAreEachSamplesOwn() {
        var random = SplitMix64(seed: 34)
        // Large enough in total to be shared out among threads, and a few small or empty ones.
        // Durations in microseconds, as a replay keeps them (whole tenths of a second here).
        let microseconds: [[Int64]] =
            (0..<6).map { step in (0..<(20_000 + step)).map { _ in Int64(random.next() % 100_000) * 100_000 } }
            + [[], [4_000_000], [1_000_000, 2_000_000]]
        let summaries = DurationSummary.summaries(
            microseconds.map { values in
                var samples = DurationSamples()
                for value in values { samples.append(microseconds: value) }
                return samples
            })
        let samples = microseconds.map { $0.map { Double($0) / 1_000_000 } }
        #expect(summaries.count == samples.count)
        for (sample, summary) in zip(samples, summaries) {
            let sorted = sample.sorted()
            #expect(summary.count == sample.count)
            #expect(summary.median == Quantiles.quantile(sorted: sorted, 0.5))
            #expect(summary.p90 == Quantiles.quantile(sorted: sorted, 0.9))
        }
    }

    /// The levels may come in any order and repeat; each answer stays with its level.
    @Test func levelsInAnyOrder() throws {
        let sample: [Double] = [3, 1, 4, 1, 5, 9, 2, 6]
        let answers = Quantiles.quantiles(sample, [0.9, 0.5, 0.9, 0])
        #expect(answers.count == 4)
        #expect(abs((answers[0] ?? 0) - 6.9) < 1e-9)
        #expect(abs((answers[1] ?? 0) - 3.5) < 1e-9)
        #expect(answers[2] == answers[0])
        #expect(answers[3] == 1)
    }
}
