import Testing

@testable import OnboardMetricsStore

@Suite struct RecordingMarkTests {
    @Test func eachRecorderKeepsTheRangeFromItsFirstOrdinalToItsLast() {
        var mark = RecordingMark()
        #expect(mark.isEmpty)
        #expect(mark.ordinals(of: 0) == nil)
        for ordinal in [7, 9, 8, 12] { mark.note(ordinal, recorder: 0) }
        mark.note(3, recorder: 2)
        mark.note(5, recorder: 0)
        #expect(!mark.isEmpty)
        #expect(mark.ordinals(of: 0) == 5..<13)
        #expect(mark.ordinals(of: 2) == 3..<4)
        #expect(mark.ordinals(of: 1) == nil)
        #expect(mark.ranges.count == 2)
    }
}
