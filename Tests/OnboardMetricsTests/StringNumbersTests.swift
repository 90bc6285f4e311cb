import Testing

@testable import OnboardMetricsAnalysis

@Suite struct StringNumbersTests {
    @Test func stringsAreNumberedInTheOrderFirstMetAndRenumberedForAnother() {
        var mine = StringNumbers()
        #expect(["b", "a", "b", "c", "a"].map { mine.number(of: $0) } == [0, 1, 0, 2, 1])
        #expect(mine.strings == ["b", "a", "c"] && mine[2] == "c")
        var theirs = StringNumbers()
        for string in ["c", "d", "b"] { _ = theirs.number(of: string) }
        // Their 0 ("c") is my 2, their 1 ("d") is new to me: 3, their 2 ("b") is my 0.
        #expect(mine.renumbering(theirs) == [2, 3, 0])
        #expect(mine.strings == ["b", "a", "c", "d"])
    }
}
