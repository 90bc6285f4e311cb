import Testing

@testable import OnboardMetricsRendering
@testable import OnboardMetricsSDK

@Suite struct TextTableTests {
    let table = TextTable(
        header: ["step", "viewed", "note"], rows: [["welcome", "1200", "a, b"], ["consent", "87", "say \"hi\""]],
        numericColumns: [1])

    @Test func textAlignsColumnsAndRightAlignsNumbers() {
        #expect(
            table.text == """
                step     viewed  note
                welcome    1200  a, b
                consent      87  say "hi"
                """)
    }

    @Test func csvQuotesPerRFC4180() {
        #expect(table.csv == "step,viewed,note\nwelcome,1200,\"a, b\"\nconsent,87,\"say \"\"hi\"\"\"")
    }

    @Test func markdownEscapesPipesAndAlignsNumbers() {
        let piped = TextTable(header: ["a|b", "n"], rows: [["x|y", "1"]], numericColumns: [1])
        #expect(piped.markdown == "| a\\|b | n |\n| --- | ---: |\n| x\\|y | 1 |")
    }
}
