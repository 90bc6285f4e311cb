import Foundation
import OnboardMetricsAnalysis

extension FunnelReport: HTMLReportSection {
    /// `funnel-<flow id>`.
    public var htmlSectionID: String { "funnel-" + HTML.identifier(flowID) }

    /// "Funnel: <flow> v<version>".
    public var htmlSectionTitle: String { "Funnel: \(flowID) v\(flowVersion)" }

    /// The report as a self-contained HTML page (see ``HTMLDocument``).
    public func html() -> String {
        HTMLDocument(title: htmlSectionTitle, subtitle: htmlSubtitle, sections: [self]).render()
    }

    /// Per group: headline figures, the funnel chart (completed / skipped / dropped shares of the
    /// eligible units per step), time on step (p50 and p90), and the full step table.
    public func htmlSectionBody() -> String {
        var html = "<p class=\"note\">\(HTML.escape(htmlSubtitle))</p>\n"
        for (index, group) in groups.enumerated() {
            let groupID = htmlSectionID + (group.breakdown.map { "-" + HTML.identifier($0) } ?? "") + "-\(index)"
            if let breakdownBy {
                html += "<h3>\(HTML.escape(breakdownBy)) = \(HTML.escape(group.breakdown ?? "(none)"))</h3>\n"
            }
            html += Self.kpis(group.totals, unit: unit.rawValue)
            html += funnelChart(group, id: groupID + "-steps")
            html += timeChart(group, id: groupID + "-time")
            html += "<div class=\"table-wrap\">" + stepTable(group).render() + "</div>\n"
        }
        return html
    }

    private var htmlSubtitle: String {
        var text =
            "Per \(unit.rawValue); window \(NumberText.duration(windowSeconds)), inactivity \(NumberText.duration(inactivitySeconds)); "
            + "as of \(ISO8601DateFormatter().string(from: reportEnd))."
        if otherFlowSessions > 0 { text += " \(otherFlowSessions) sessions of other flows not counted." }
        return text
    }

    private static func kpis(_ totals: Totals, unit: String) -> String {
        let items = [
            ("started", String(totals.started)), ("completed", String(totals.completed)),
            ("dropped", String(totals.dropped)), ("in progress", String(totals.inProgress)),
            ("completion rate", NumberText.percent(totals.completionRate)),
        ]
        return "<ul class=\"kpis\" aria-label=\"Totals per \(HTML.escape(unit))\">"
            + items.map {
                "<li><span class=\"value\">\(HTML.escape($0.1))</span><span class=\"label\">\($0.0)</span></li>"
            }
            .joined() + "</ul>\n"
    }

    private func funnelChart(_ group: Group, id: String) -> String {
        let series = [
            SVGStackedBarChart.Series(label: "completed", color: "#2e7d5b"),
            SVGStackedBarChart.Series(label: "skipped", color: "#e0a030"),
            SVGStackedBarChart.Series(label: "dropped here", color: "#c8453a"),
        ]
        let bars = group.steps.map { row -> SVGStackedBarChart.Bar in
            let base = Double(max(row.eligible, 1))
            return SVGStackedBarChart.Bar(
                label: row.step,
                shares: [Double(row.completed) / base, Double(row.skipped) / base, Double(row.droppedHere) / base],
                note: "\(row.eligible) eligible")
        }
        let chart = SVGStackedBarChart(
            id: id,
            title: "Steps of \(flowID): completed, skipped and dropped, as shares of eligible \(unit.rawValue)s",
            description: "One bar per step, its full width the \(unit.rawValue)s the step applied to. "
                + "Green: completed; amber: skipped; red: dropped at this step; grey: the rest (not reached, "
                + "or moved on without completing).",
            series: series, bars: bars)
        let rows = group.steps.map { row in
            HTMLTable.Row(
                key: row.step,
                cells: [
                    HTMLTable.Cell(row.step), .count(row.eligible), .percent(share(row.completed, of: row.eligible)),
                    .percent(share(row.skipped, of: row.eligible)), .percent(share(row.droppedHere, of: row.eligible)),
                ])
        }
        let fallback = HTMLTable(
            caption: chart.title, header: ["step", "eligible", "completed", "skipped", "dropped here"], rows: rows,
            numericColumns: [1, 2, 3, 4])
        return chart.chart().figure(fallback: fallback)
    }

    private func timeChart(_ group: Group, id: String) -> String {
        let rows = group.steps.map { row in
            SVGRangeChart.Row(
                label: row.step, middle: row.timeOnStep.median, upper: row.timeOnStep.p90,
                note: "\(NumberText.seconds(row.timeOnStep.median)) · \(NumberText.seconds(row.timeOnStep.p90))")
        }
        let chart = SVGRangeChart(
            id: id, title: "Time on step in \(flowID) (median and 90th percentile)",
            description: "One row per step: the dark bar reaches the median time from view to completion or skip, "
                + "the light bar the 90th percentile.",
            middleLabel: "median", upperLabel: "p90", rows: rows, format: { NumberText.seconds($0) })
        let fallback = HTMLTable(
            caption: chart.title, header: ["step", "time on step p50", "p90"],
            rows: group.steps.map {
                HTMLTable.Row(
                    key: $0.step,
                    cells: [HTMLTable.Cell($0.step), .seconds($0.timeOnStep.median), .seconds($0.timeOnStep.p90)])
            }, numericColumns: [1, 2])
        return chart.chart().figure(fallback: fallback)
    }

    private func stepTable(_ group: Group) -> HTMLTable {
        let rows = group.steps.map { row in
            HTMLTable.Row(
                key: row.step,
                cells: [
                    HTMLTable.Cell(row.step + (row.condition.map { " [\($0)]" } ?? "")), .count(row.eligible),
                    .count(row.viewed), .count(row.completed), .count(row.skipped), .count(row.droppedHere),
                    .count(row.inProgressHere), .percent(row.conversionFromPrevious), .percent(row.conversionFromStart),
                    .seconds(row.timeOnStep.median), .seconds(row.timeOnStep.p90), .seconds(row.timeFromStart.median),
                    .seconds(row.timeFromStart.p90),
                ])
        }
        return HTMLTable(
            caption: "Steps" + (group.breakdown.map { " (\(breakdownBy ?? "group") = \($0))" } ?? ""),
            header: [
                "step", "eligible", "viewed", "completed", "skipped", "dropped", "in progress", "conv. prev",
                "conv. start", "time on step p50", "p90", "from start p50", "p90",
            ], rows: rows, numericColumns: Set(1..<13), name: "steps")
    }

    private func share(_ part: Int, of whole: Int) -> Double? {
        whole == 0 ? nil : Double(part) / Double(whole)
    }
}
