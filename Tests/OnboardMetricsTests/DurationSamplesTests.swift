import Foundation
import OnboardMetricsStatistics
import Testing

@testable import OnboardMetricsAnalysis

@Suite struct DurationSamplesTests {
    /// Every duration comes back as the seconds the replay computed before it kept microseconds
    /// (`Double(microseconds) / 1_000_000`), bit for bit and in the order added, whether it was
    /// kept in 4 bytes or, past 71 minutes or below zero, in 8.
    @Test func durationsComeBackAsTheirSecondsInOrder() {
        var random = SplitMix64(seed: 19)
        let edges: [Int64] = [
            0, 1, 999_999, 6_302_000, Int64(UInt32.max) - 1, Int64(UInt32.max), Int64(UInt32.max) + 1, -1,
            -6_302_000, Int64.max, Int64.min + 1,
        ]
        var added: [Int64] = edges
        for _ in 0..<5_000 {
            added.append(
                Bool.random(using: &random)
                    ? Int64.random(in: 0...10_000_000_000, using: &random)
                    : Int64.random(in: Int64.min + 1...Int64.max, using: &random))
        }
        var samples = DurationSamples()
        for microseconds in added { samples.append(microseconds: microseconds) }
        #expect(samples.count == added.count)
        #expect(samples.seconds.map(\.bitPattern) == added.map { (Double($0) / 1_000_000).bitPattern })
    }

    /// Merging parts keeps each part's order, one after the other, as concatenating the seconds did.
    @Test func appendingAPartKeepsBothOrders() {
        var first = DurationSamples()
        var second = DurationSamples()
        for value: Int64 in [5_000_000, -2, 9_000_000_000] { first.append(microseconds: value) }
        for value: Int64 in [7_000_000_000, 3, -4_000_000] { second.append(microseconds: value) }
        var merged = [first, DurationSamples()]
        merged.appendSamples([second, second])
        #expect(merged[0].seconds == first.seconds + second.seconds)
        #expect(merged[1].seconds == second.seconds)
        #expect(merged[0].seconds == [5, -0.000002, 9_000, 7_000, 0.000003, -4])
    }

    /// The summary selected on the microseconds is the summary of the seconds, bit for bit: for
    /// sizes from none to 100,000 (selected below 8,192, counted from there), with ties, in and out of order, with long ones.
    @Test func theSummaryIsTheSecondsSummary() {
        var random = SplitMix64(seed: 23)
        // From 8,192 durations the summary counts rather than selects: sizes on both sides.
        for size in [0, 1, 2, 3, 4, 5, 10, 11, 100, 1_001, 4_000, 8_191, 8_192, 8_193, 30_001, 100_000] {
            for shape in 0..<6 {
                var samples = DurationSamples()
                for index in 0..<size {
                    let value: Int64
                    switch shape {
                    case 0: value = Int64.random(in: 0...3_600_000_000, using: &random)
                    case 1: value = Int64.random(in: 0...5, using: &random) * 1_000_000  // whole seconds, ties
                    case 2: value = Int64(size - index) * 7_919
                    case 4: value = Int64.random(in: 0..<65_536, using: &random)  // all in one group of the counts
                    case 5: value = Int64.random(in: 0...2, using: &random) * 65_536 + 65_535  // groups' edges
                    default: value = Int64.random(in: -1_000...9_000_000_000, using: &random)  // long ones too
                    }
                    samples.append(microseconds: value)
                }
                let expected = DurationSummary(samples.seconds)
                let summary = samples.summary
                #expect(summary.count == expected.count)
                #expect(summary.median?.bitPattern == expected.median?.bitPattern, "\(size), shape \(shape)")
                #expect(summary.p90?.bitPattern == expected.p90?.bitPattern, "\(size), shape \(shape)")
            }
        }
    }
}
