import Testing

@testable import OnboardMetricsStore

@Suite struct RefusalIsolationTests {
    /// Drives an isolation the way the recorder's writer does, with a database that refuses any
    /// part holding one of `bad`; returns the isolation and the parts written, in order.
    static func isolate(count: Int, bad: Set<Int>, failAt: Int? = nil) -> (RefusalIsolation, [Range<Int>]) {
        var isolation = RefusalIsolation(batchOf: count)
        var writes: [Range<Int>] = []
        while let part = isolation.next {
            writes.append(part)
            if let failAt, writes.count == failAt {
                isolation.record(.connectionFailed)
            } else if part.contains(where: bad.contains) {
                isolation.record(.refused)
            } else {
                isolation.record(.written(inserted: part.count, duplicates: 0))
            }
        }
        return (isolation, writes)
    }

    @Test func aRefusedBatchIsBisectedToItsBadEventAndTheRestIsWritten() {
        let (isolation, writes) = Self.isolate(count: 8, bad: [5])
        #expect(isolation.refused == [5])
        #expect(isolation.inserted == 7 && isolation.unsent.isEmpty)
        // Whole, then halves down to the bad event, depth first: 1 + 2 per level of log2(8).
        #expect(writes == [0..<8, 0..<4, 4..<8, 4..<6, 4..<5, 5..<6, 6..<8])
    }

    @Test func everyBadEventIsFoundAndNoGoodOneIsLost() {
        for count in 1...40 {
            for bad in [
                Set<Int>(), [0], [count - 1], Set([0, count / 2, count - 1]), Set(stride(from: 0, to: count, by: 3)),
            ] {
                let (isolation, _) = Self.isolate(count: count, bad: bad)
                #expect(Set(isolation.refused) == bad, "count \(count) bad \(bad)")
                #expect(isolation.inserted == count - bad.count)
                #expect(isolation.refused.count == bad.count)
            }
        }
    }

    @Test func aConnectionFailureRefusesNothingAndLeavesTheRestUnsent() {
        let (isolation, _) = Self.isolate(count: 8, bad: [5], failAt: 3)
        // Written 0..<4 (second write); the third write (4..<8) failed with the connection.
        #expect(isolation.inserted == 4)
        #expect(isolation.refused.isEmpty)
        #expect(isolation.unsent == Array(4..<8))
    }
}
