import Foundation
import Testing

@testable import OnboardMetricsReader
@testable import OnboardMetricsRendering
@testable import OnboardMetricsSDK

@Suite struct SessionIndexTableTests {
    /// Random inserts and removals, checked step by step against Dictionary.
    @Test(arguments: [1, 2, 3])
    func agreesWithDictionary(seed: UInt64) {
        var random = SplitMix(seed: seed)
        var table = SessionIndexTable(capacity: 4)
        var reference: [UUID: Int] = [:]
        var ids: [UUID] = []
        for step in 0..<20_000 {
            if ids.isEmpty || random.next() % 3 != 0 {
                let id = UUIDv7Generator.randomV4(using: &random)
                table.insert(id, slot: step)
                reference[id] = step
                ids.append(id)
            } else {
                let index = Int(random.next() % UInt64(ids.count))
                let id = ids.remove(at: index)
                table.remove(id)
                reference[id] = nil
            }
        }
        #expect(table.count == reference.count)
        #expect(reference.allSatisfy { table.slot(of: $0.key) == $0.value })
        #expect(table.slot(of: UUID()) == nil)
    }

    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
