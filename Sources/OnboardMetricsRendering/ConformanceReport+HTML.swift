import OnboardMetricsAnalysis

extension ConformanceReport: HTMLReportSection {
    /// `conformance-<flow id>`.
    public var htmlSectionID: String { "conformance-" + HTML.identifier(flowID) }

    /// "Conformance: <flow> v<version>".
    public var htmlSectionTitle: String { "Conformance: \(flowID) v\(flowVersion)" }

    /// The report as a self-contained HTML page (see ``HTMLDocument``).
    public func html() -> String {
        HTMLDocument(title: htmlSectionTitle, sections: [self]).render()
    }

    /// Headline figures, the fitness histogram and the deviation table.
    public func htmlSectionBody() -> String {
        let number = { (value: Double?) in value.map { String(format: "%.3f", $0) } ?? "–" }
        let items = [
            ("sessions", String(sessions)), ("fit perfectly", NumberText.percent(perfectlyFittingShare)),
            ("deviations", String(deviationCount)), ("mean fitness", number(fitness.mean)),
            ("p10 fitness", number(fitness.p10)),
        ]
        var html =
            "<p class=\"note\">Each session of the flow replayed through its navigator; fitness = 1 − d / (e + d). "
            + "\(otherFlowSessions) sessions of other flows skipped.</p>\n<ul class=\"kpis\">"
            + items.map {
                "<li><span class=\"value\">\(HTML.escape($0.1))</span><span class=\"label\">\($0.0)</span></li>"
            }
            .joined() + "</ul>\n"
        let columns = histogram.map {
            SVGColumnChart.Column(label: String(format: "%.1f–%.1f", $0.lower, $0.upper), value: $0.sessions)
        }
        let chart = SVGColumnChart(
            id: htmlSectionID + "-fitness", title: "Sessions by fitness",
            description: "A histogram of per-session fitness in ten buckets of width 0.1; the last bucket holds "
                + "the sessions that fit perfectly or nearly.", columns: columns)
        let fallback = HTMLTable(
            caption: chart.title, header: ["fitness", "sessions"],
            rows: columns.map { HTMLTable.Row(key: $0.label, cells: [HTMLTable.Cell($0.label), .count($0.value)]) },
            numericColumns: [1])
        html += chart.chart().figure(fallback: fallback)
        let deviationRows = deviations.map {
            HTMLTable.Row(
                key: $0.kind.rawValue + "/" + ($0.stepID ?? ""),
                cells: [
                    HTMLTable.Cell($0.kind.rawValue), HTMLTable.Cell($0.flowID ?? ""), HTMLTable.Cell($0.stepID ?? ""),
                    .count($0.occurrences), .count($0.sessions),
                    HTMLTable.Cell($0.exampleSessions.joined(separator: " ")),
                ])
        }
        if deviationRows.isEmpty { return html + "<p>No deviations: every session is a legal path of the flow.</p>\n" }
        let table = HTMLTable(
            caption: "Deviations", header: ["kind", "flow", "step", "occurrences", "sessions", "example sessions"],
            rows: deviationRows, numericColumns: [3, 4], name: "deviations")
        return html + "<div class=\"table-wrap\">" + table.render() + "</div>\n"
    }
}
