import Testing

@testable import OnboardMetrics
@testable import OnboardMetricsSDK

@Suite struct CSVReaderTests {
    private func split(_ text: String) -> CSVReader.Outcome {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBufferPointer { CSVReader.split(UnsafeBufferPointer($0)) }
    }

    private func feed(_ lines: [String]) -> [CSVReader.Outcome] {
        var reader = CSVReader()
        var outcomes: [CSVReader.Outcome] = []
        for line in lines {
            var bytes = Array(line.utf8)
            outcomes.append(bytes.withUnsafeMutableBufferPointer { reader.feed(UnsafeBufferPointer($0)) })
        }
        if let last = reader.finish() { outcomes.append(last) }
        return outcomes
    }

    @Test func plainFieldsIncludingEmptyOnes() {
        #expect(split("a,b,c") == .record(["a", "b", "c"]))
        #expect(split("a,,c,") == .record(["a", "", "c", ""]))
        #expect(split("") == .record([""]))
    }

    @Test func quotedFieldsHoldSeparatorsAndDoubledQuotes() {
        #expect(split(#""a,1","say ""hi""",x"#) == .record(["a,1", #"say "hi""#, "x"]))
        #expect(split(#""",b"#) == .record(["", "b"]))
        #expect(split("é,\"ü\"") == .record(["é", "ü"]))
    }

    @Test func quoteInsideAnUnquotedFieldIsKeptAsText() {
        #expect(split(#"5"5,b"#) == .record([#"5"5"#, "b"]))
    }

    @Test func textAfterAClosingQuoteIsMalformed() {
        guard case .malformed(let reason) = split(#""a"b,c"#) else {
            Issue.record("expected malformed")
            return
        }
        #expect(reason.contains("after its closing quote"))
    }

    @Test func aQuotedFieldSpansLines() {
        #expect(
            feed([#"1,"first"#, "second", #"third",x"#]) == [
                .needsMore, .needsMore, .record(["1", "first\nsecond\nthird", "x"]),
            ])
    }

    @Test func anOpenQuoteAtTheEndOfInputIsMalformed() {
        let outcomes = feed([#"1,"never closed"#, "more"])
        #expect(outcomes.count == 3)
        guard case .malformed(let reason) = outcomes.last else {
            Issue.record("expected malformed")
            return
        }
        #expect(reason.contains("not closed"))
    }
}
