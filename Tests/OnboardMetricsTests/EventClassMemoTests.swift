import Foundation
import Testing

@testable import OnboardMetricsReader

/// The memo of a session file's event classes answers what its function answers, whichever
/// values share a slot: each of the five numbers is part of the key.
@Suite struct EventClassMemoTests {
    /// A value that differs with every number.
    static func value(_ numbers: [UInt64]) -> UInt64 {
        numbers.reduce(0xCBF2_9CE4_8422_2325 as UInt64) { ($0 ^ $1) &* 0x100_0000_01B3 }
    }

    @Test(arguments: 0..<5)
    func keysThatDifferInOneNumberOnlyAreKeptApart(field: Int) {
        var memo = EventClassMemo()
        var computed = 0
        var wrong = 0
        // 5,000 keys differing in one number, into 4,096 slots, twice over: many share a slot.
        for _ in 0..<2 {
            for number in 0..<UInt64(5_000) {
                var numbers: [UInt64] = [3, 5, 7, 11, 13]
                numbers[field] = field == 0 ? number % 200 : number
                let answer = memo.value(
                    kind: Int(numbers[0]), flow: numbers[1], step: numbers[2], name: numbers[3],
                    properties: numbers[4]
                ) {
                    computed += 1
                    return Self.value(numbers)
                }
                if answer != Self.value(numbers) { wrong += 1 }
            }
        }
        #expect(wrong == 0)
        // Held, not worked out again each time (kinds are 200 distinct keys seen 50 times each).
        #expect(computed < (field == 0 ? 2_000 : 10_000))
    }
}
