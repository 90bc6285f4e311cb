import Foundation
import OnboardMetricsAnalysis
import OnboardMetricsReader

extension CorrelationReport: HTMLReportSection {
    /// `correlation`.
    public var htmlSectionID: String { "correlation" }

    /// "Correlation".
    public var htmlSectionTitle: String { "Correlation" }

    /// The report as a self-contained HTML page (see ``HTMLDocument``).
    public func html() -> String {
        HTMLDocument(title: htmlSectionTitle, subtitle: title, sections: [self]).render()
    }

    /// The summary and warnings, per group a bar chart of log odds ratios, and the table.
    public func htmlSectionBody() -> String {
        var html = summaryLines.map { "<p class=\"note\">\(HTML.escape($0))</p>\n" }.joined()
        guard !listed.isEmpty else { return html + "<p>No candidate to list.</p>\n" }
        for (index, group) in groups.enumerated() where !(group.positive.isEmpty && group.negative.isEmpty) {
            let rows = group.positive + group.negative.reversed()
            let chart = Self.logOddsChart(
                id: "correlation-\(index)",
                title: "Log odds ratio per candidate"
                    + (group.breakdown.map { ", \(breakdownBy ?? "by") = \($0)" } ?? ""),
                rows: rows)
            let fallback = HTMLTable(
                caption: chart.title, header: ["candidate", "odds ratio", "log odds ratio", "adjusted p"],
                rows: rows.map { row in
                    HTMLTable.Row(
                        key: row.kind.rawValue + "/" + row.name,
                        cells: [
                            HTMLTable.Cell(row.name),
                            HTMLTable.Cell(Self.ratio(row.oddsRatio), value: HTML.exact(row.oddsRatio)),
                            HTMLTable.Cell(String(format: "%.2f", log(row.oddsRatio))),
                            HTMLTable.Cell(Self.probability(row.adjustedPValue), value: HTML.exact(row.adjustedPValue)),
                        ])
                }, numericColumns: [1, 2, 3])
            html += chart.figure(fallback: fallback)
        }
        let text = table
        let htmlTable = HTMLTable(
            caption: "Candidates (s of \(groups.map { String($0.successes) }.joined(separator: "/")) successes, "
                + "f of \(groups.map { String($0.failures) }.joined(separator: "/")) failures)",
            header: text.header,
            rows: text.rows.enumerated().map { index, cells in
                HTMLTable.Row(key: String(index), cells: cells.map { HTMLTable.Cell($0) })
            }, numericColumns: text.numericColumns, name: "candidates")
        html += "<div class=\"table-wrap\">" + htmlTable.render() + "</div>\n"
        return html
    }

    /// Horizontal bars from a zero line: right (blue) where a candidate goes with success, left
    /// (red) where it goes with failure; significant ones solid, the others pale.
    private static func logOddsChart(id: String, title: String, rows: [Row]) -> SVGChart {
        let labelWidth = 260.0
        let half = 280.0
        let rowHeight = 24.0
        let top = 30.0
        let largest = max(0.5, rows.map { abs(log($0.oddsRatio)) }.max() ?? 0.5)
        let scale = half / largest
        let zero = labelWidth + half
        var body = SVGChart.legend(
            [("with success", "#2f5fb3"), ("with failure", "#c0392b"), ("not significant", "#c9ced6")], x: labelWidth,
            y: 14)
        for (index, row) in rows.enumerated() {
            let y = top + Double(index) * rowHeight
            let value = log(row.oddsRatio)
            let width = abs(value) * scale
            let color = !row.significant ? "#c9ced6" : value > 0 ? "#2f5fb3" : "#c0392b"
            body += SVGChart.text(SVGChart.clipped(row.name, limit: 34), x: labelWidth - 8, y: y + 14, anchor: "end")
            body += SVGChart.rect(
                x: value > 0 ? zero : zero - width, y: y + 3, width: width, height: rowHeight - 8, fill: color,
                label: "\(row.name): odds ratio \(ratio(row.oddsRatio)), adjusted p \(probability(row.adjustedPValue))")
            body += SVGChart.text(
                "OR " + ratio(row.oddsRatio), x: zero + half + 8, y: y + 14)
        }
        let bottom = top + Double(rows.count) * rowHeight
        body += SVGChart.line(x1: zero, y1: top - 4, x2: zero, y2: bottom, stroke: "#1d2330")
        body += SVGChart.text("log odds ratio 0 (no association)", x: zero, y: bottom + 16, anchor: "middle")
        return SVGChart(
            id: id, title: title,
            description: "One bar per listed candidate: the natural log of its odds ratio; bars to the right go with "
                + "success, to the left with failure; pale bars are not significant after the correction.",
            width: zero + half + 90, height: bottom + 26, body: body)
    }
}
