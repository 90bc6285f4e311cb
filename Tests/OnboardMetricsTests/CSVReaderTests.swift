import Testing

@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

@Suite struct CSVReaderTests {
    private func split(_ text: String) -> CSVReader.Outcome {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBufferPointer { CSVReader.split(UnsafeBufferPointer($0)) }
    }

    private func feed(_ lines: [String]) -> [CSVReader.Outcome] {
        var reader = CSVReader()
        var outcomes: [CSVReader.Outcome] = []
        let body: (CSVReader.Record) -> Bool = {
            outcomes.append($0.outcome)
            return true
        }
        for (index, line) in lines.enumerated() {
            var bytes = Array(line.utf8)
            _ = bytes.withUnsafeMutableBufferPointer { reader.feed(UnsafeBufferPointer($0), number: index + 1, body) }
        }
        _ = reader.finish(body)
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
            feed([#"1,"first"#, "second", #"third",x"#]) == [.record(["1", "first\nsecond\nthird", "x"])])
    }

    @Test func anOpenQuoteAtTheEndOfInputIsMalformed() {
        let outcomes = feed([#"1,"never closed"#, "more"])
        // The open record's first line is malformed; the line after it is read on its own.
        #expect(outcomes.count == 2)
        #expect(outcomes.last == .record(["more"]))
        guard case .malformed(let reason) = outcomes.first else {
            Issue.record("expected malformed")
            return
        }
        #expect(reason.contains("not closed"))
    }
}
