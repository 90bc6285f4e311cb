import OnboardMetricsAnalysis

extension AdHocFunnelReport: HTMLReportSection {
    /// `adhoc-funnel`.
    public var htmlSectionID: String { "adhoc-funnel" }

    /// "Ad-hoc funnel: a → b → c".
    public var htmlSectionTitle: String { "Ad-hoc funnel: " + steps.joined(separator: " → ") }

    /// The report as a self-contained HTML page (see ``HTMLDocument``).
    public func html() -> String {
        HTMLDocument(title: htmlSectionTitle, sections: [self]).render()
    }

    /// The conversion chart (reached each step, as a share of step 1) and the step table.
    public func htmlSectionBody() -> String {
        var html =
            "<p class=\"note\">\(HTML.escape(order.rawValue)) order, per \(HTML.escape(unit.rawValue)), window "
            + "\(HTML.escape(NumberText.duration(windowSeconds))); \(units) \(HTML.escape(unit.rawValue))s read.</p>\n"
        let chart = SVGStackedBarChart(
            id: "adhoc-funnel-steps", title: "Reached each step, as a share of those that reached step 1",
            description: "One bar per step; the filled part is the conversion from the first step.",
            series: [.init(label: "reached", color: "#2f5fb3")],
            bars: rows.map {
                SVGStackedBarChart.Bar(
                    label: $0.step, shares: [$0.conversionFromStart ?? 0],
                    note: "\($0.count) · \(NumberText.percent($0.conversionFromStart))")
            })
        let fallback = HTMLTable(
            caption: chart.title, header: ["step", "count", "conv. start"],
            rows: rows.map {
                HTMLTable.Row(
                    key: $0.step, cells: [HTMLTable.Cell($0.step), .count($0.count), .percent($0.conversionFromStart)])
            }, numericColumns: [1, 2])
        html += chart.chart().figure(fallback: fallback)
        let table = HTMLTable(
            caption: "Steps",
            header: [
                "step", "count", "conv. prev", "conv. start", "time to convert p50", "p90", "from start p50", "p90",
            ],
            rows: rows.map { row in
                HTMLTable.Row(
                    key: row.step,
                    cells: [
                        HTMLTable.Cell(row.step), .count(row.count), .percent(row.conversionFromPrevious),
                        .percent(row.conversionFromStart), .seconds(row.timeToConvert.median),
                        .seconds(row.timeToConvert.p90), .seconds(row.timeFromStart.median),
                        .seconds(row.timeFromStart.p90),
                    ])
            }, numericColumns: Set(1..<8), name: "steps")
        return html + "<div class=\"table-wrap\">" + table.render() + "</div>\n"
    }
}
