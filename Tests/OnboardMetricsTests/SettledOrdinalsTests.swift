import Testing

@testable import OnboardMetricsStore

@Suite struct SettledOrdinalsTests {
    @Test func runsMergeAsTheGapsFillWhateverTheOrder() {
        var settled = SettledOrdinals()
        settled.insert([5, 6, 7])
        settled.insert([10])
        #expect(settled.settledBelow == 0)
        #expect(settled.runs == [5..<8, 10..<11])
        #expect(settled.contains(5..<8) && !settled.contains(4..<8) && !settled.contains(7..<11))
        settled.insert([2, 0, 1, 3, 4])
        #expect(settled.settledBelow == 8 && settled.runs == [10..<11])
        settled.insert([9, 8, 8])
        #expect(settled.settledBelow == 11 && settled.runs.isEmpty)
        #expect(settled.contains(0..<11) && !settled.contains(0..<12))
        #expect(settled.contains(20..<20))
    }

    @Test func agreesWithASetOfEveryOrdinalOnShuffledBatches() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            var settled = SettledOrdinals()
            var reference = Set<Int>()
            let ordinals = Array(0..<200).shuffled(using: &generator)
            for chunk in stride(from: 0, to: ordinals.count, by: 13) {
                let batch = Array(ordinals[chunk..<min(chunk + 13, ordinals.count)])
                settled.insert(batch)
                reference.formUnion(batch)
                for low in stride(from: 0, to: 200, by: 17) {
                    for length in [1, 5, 40] {
                        let range = low..<min(low + length, 200)
                        #expect(settled.contains(range) == range.allSatisfy(reference.contains))
                    }
                }
            }
        }
    }
}
