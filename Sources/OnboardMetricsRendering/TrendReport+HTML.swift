import Foundation
import OnboardMetricsAnalysis

extension TrendReport: HTMLReportSection {
    /// `trend-<flow id>`.
    public var htmlSectionID: String { "trend-" + HTML.identifier(flowID) }

    /// "Trend: <flow> by <interval>".
    public var htmlSectionTitle: String { "Trend: \(flowID) by \(interval.rawValue)" }

    /// The report as a self-contained HTML page (see ``HTMLDocument``).
    public func html() -> String {
        HTMLDocument(title: htmlSectionTitle, subtitle: title, sections: [self]).render()
    }

    /// A line chart of the completion rate per period with its interval as a band (one line per
    /// breakdown value; periods mostly in progress hollow, reached by a dashed line), then per
    /// series the table of periods.
    public func htmlSectionBody() -> String {
        let percent = Int((level * 100).rounded())
        var html = "<p class=\"note\">\(HTML.escape(title)). \(HTML.escape(footnote))</p>\n"
        let labels = Array(Set(series.flatMap { $0.periods.map(\.label) })).sorted()
        let chart = SVGLineChart(
            id: htmlSectionID + "-completion", title: "Completion rate by \(interval.rawValue) of session start",
            description: "One line per \(breakdownBy ?? "series"): the share of sessions started in each "
                + "\(interval.rawValue) that completed the flow, with its \(percent)% Wilson interval as a band; "
                + "hollow points are periods whose sessions are mostly still in progress.",
            labels: labels,
            series: series.enumerated().map { index, line in
                let byLabel = Dictionary(line.periods.map { ($0.label, $0) }, uniquingKeysWith: { first, _ in first })
                return SVGLineChart.Series(
                    label: line.breakdown ?? "completion",
                    color: SVGLineChart.palette[index % SVGLineChart.palette.count],
                    points: labels.map { label in
                        guard let period = byLabel[label], let rate = period.completionRate else { return nil }
                        return SVGLineChart.Point(
                            value: rate, lower: period.interval?.lower, upper: period.interval?.upper,
                            provisional: period.provisional,
                            note: "\(period.completed)/\(period.started - period.inProgress)"
                                + (period.note.isEmpty ? "" : ", " + period.note))
                    })
            })
        let fallback = HTMLTable(
            caption: chart.title,
            header: (breakdownBy.map { [$0] } ?? []) + ["period", "completion", "\(percent)% CI", "note"],
            rows: series.flatMap { line in
                line.periods.map { period in
                    HTMLTable.Row(
                        key: (line.breakdown.map { $0 + "/" } ?? "") + period.label,
                        cells: (breakdownBy == nil ? [] : [HTMLTable.Cell(line.breakdown ?? "")]) + [
                            HTMLTable.Cell(period.label), .percent(period.completionRate),
                            HTMLTable.Cell(NumberText.interval(period.interval)),
                            HTMLTable.Cell(period.note),
                        ])
                }
            })
        html += chart.chart().figure(fallback: fallback)
        for line in series {
            if let breakdownBy {
                html += "<h3>\(HTML.escape(breakdownBy)) = \(HTML.escape(line.breakdown ?? "(none)"))</h3>\n"
            }
            html += "<div class=\"table-wrap\">" + periodTable(line, percent: percent).render() + "</div>\n"
        }
        return html
    }

    private func periodTable(_ line: Series, percent: Int) -> HTMLTable {
        HTMLTable(
            caption: "Periods" + (line.breakdown.map { " (\($0))" } ?? ""),
            header: ["period", "started", "completed", "in progress", "completion", "\(percent)% CI", "note"] + steps,
            rows: line.periods.map { period in
                HTMLTable.Row(
                    key: (line.breakdown.map { $0 + "/" } ?? "") + period.label,
                    cells: [
                        HTMLTable.Cell(period.label), .count(period.started), .count(period.completed),
                        .count(period.inProgress), .percent(period.completionRate),
                        HTMLTable.Cell(NumberText.interval(period.interval)),
                        HTMLTable.Cell(period.note),
                    ] + period.steps.map { .percent($0.conversion) })
            }, numericColumns: Set(1...4).union(7..<(7 + steps.count)), name: "trend-periods")
    }
}
