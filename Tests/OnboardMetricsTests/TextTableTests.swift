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

    @Test func csvDefusesCellsASpreadsheetWouldRunAsFormulas() {
        // Issue 59 (P3-8): ids and properties from apps, opened in a spreadsheet.
        let table = TextTable(
            header: ["user", "change"],
            rows: [
                ["=HYPERLINK(\"http://x\",\"y\")", "-3"], ["+1+1", "-12.5 %"], ["-1+cmd", "-0.5"],
                ["@SUM(A1)", "0"], ["\tx", "1"], ["\rx", "2"], ["plain-user", "3"],
            ], numericColumns: [1])
        #expect(
            table.csv == """
                user,change
                "'=HYPERLINK(""http://x"",""y"")",-3
                "'+1+1",-12.5 %
                "'-1+cmd",-0.5
                "'@SUM(A1)",0
                "'\tx",1
                "'\rx",2
                plain-user,3
                """)
    }

    @Test func markdownCellsAreTextNotMarkupAndKeepTheirRow() {
        let table = TextTable(
            header: ["user", "n"],
            rows: [
                ["<img src=x onerror=alert(1)>", "1"], ["two\nlines\r\nthree", "2"],
                ["[a](javascript:x) *b* `c` \\|", "3"],
            ],
            numericColumns: [1])
        #expect(
            table.markdown == """
                | user | n |
                | --- | ---: |
                | &lt;img src=x onerror=alert(1)&gt; | 1 |
                | two<br>lines<br>three | 2 |
                | \\[a\\](javascript:x) \\*b\\* \\`c\\` \\\\\\| | 3 |
                """)
        // Every row is one line: nothing in a cell ends it.
        #expect(table.markdown.split(separator: "\n").count == 5)
    }
}
