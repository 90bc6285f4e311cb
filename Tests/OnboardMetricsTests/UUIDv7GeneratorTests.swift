import Foundation
import Testing

@testable import OnboardMetricsSDK
@testable import OnboardMetricsStatistics

@Suite struct UUIDv7GeneratorTests {
    @Test func layoutFollowsRFC9562() {
        var random = Xoshiro256StarStar(seed: 1)
        var generator = UUIDv7Generator()
        let id = generator.next(at: Date(timeIntervalSince1970: 1_767_571_200.123), using: &random)
        let text = id.uuidString.lowercased()
        #expect(text.hasPrefix("019b8b74-187b-7"))
        let variant = text[text.index(text.startIndex, offsetBy: 19)]
        #expect("89ab".contains(variant))
    }

    @Test func idsStrictlyIncreaseWithinAMillisecondAndWhenTheClockGoesBack() {
        var random = Xoshiro256StarStar(seed: 2)
        var generator = UUIDv7Generator()
        var previous = ""
        for step in 0..<10_000 {
            // The same millisecond many times, then a clock that jumps back.
            let milliseconds: Int64 = step < 9000 ? 1_767_571_200_000 : 1_767_571_100_000
            let id = generator.next(milliseconds: milliseconds, using: &random).uuidString
            #expect(id > previous)
            previous = id
        }
    }

    @Test func sameRandomSourceSameIDs() {
        var a = Xoshiro256StarStar(seed: 9)
        var b = Xoshiro256StarStar(seed: 9)
        var first = UUIDv7Generator()
        var second = UUIDv7Generator()
        let date = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(first.next(at: date, using: &a) == second.next(at: date, using: &b))
    }

    @Test func randomV4HasVersionAndVariant() {
        var random = SplitMix64(seed: 4)
        let text = UUIDv7Generator.randomV4(using: &random).uuidString
        #expect(text[text.index(text.startIndex, offsetBy: 14)] == "4")
    }

    @Test func xoshiroMatchesReferenceAfterSplitMixSeeding() {
        // SplitMix64 from 0 gives the published first output 0xE220A8397B1DCDAF.
        var mixer = SplitMix64(seed: 0)
        #expect(mixer.next() == 0xE220_A839_7B1D_CDAF)
        var one = Xoshiro256StarStar(seed: 42)
        var two = Xoshiro256StarStar(seed: 42)
        #expect((0..<100).map { _ in one.next() } == (0..<100).map { _ in two.next() })
    }
}
