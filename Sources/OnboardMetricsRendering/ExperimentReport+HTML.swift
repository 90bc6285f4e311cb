import OnboardMetricsAnalysis
import OnboardMetricsStatistics

extension ExperimentReport: HTMLReportSection {
    /// `experiment-KEY`.
    public var htmlSectionID: String { "experiment-" + HTML.identifier(key) }

    /// "Experiment KEY".
    public var htmlSectionTitle: String { "Experiment \(key)" }

    /// The report as a self-contained HTML page (see ``HTMLDocument``).
    public func html() -> String {
        HTMLDocument(title: htmlSectionTitle, subtitle: htmlSubtitle, sections: [self]).render()
    }

    /// Per metric: each variant's rate with its confidence interval, and the comparisons with
    /// control (differences, p-values after Holm, chance to beat control, sample size still needed);
    /// the sample-ratio check first, because a mismatch makes everything after it suspect.
    public func htmlSectionBody() -> String {
        let percent = Int((level * 100).rounded())
        var html = "<p class=\"note\">\(HTML.escape(htmlSubtitle))</p>\n"
        let ratio =
            sampleRatio.mismatch
            ? "Sample ratio mismatch: p = \(Self.probability(sampleRatio.pValue)) < \(sampleRatio.threshold). "
                + "The split is not what the assignment promised; do not trust the results below."
            : "Sample ratio as expected (χ² p = \(Self.probability(sampleRatio.pValue)))."
        html += "<p class=\"\(sampleRatio.mismatch ? "warning" : "note")\">\(HTML.escape(ratio))</p>\n"
        for (index, metric) in metrics.enumerated() {
            let chart = SVGIntervalChart(
                id: "experiment-\(HTML.identifier(key))-\(index)", title: "\(metric.metric): rate per variant",
                description: "One row per variant: the share of \(unit.rawValue)s that converted on "
                    + "\(metric.metric), with its \(percent)% Wilson interval.",
                series: [.init(label: "rate", color: "#2f5fb3")],
                rows: metric.variants.map { row in
                    SVGIntervalChart.Row(
                        label: row.variant,
                        points: [
                            row.rate.map { .init(value: $0, lower: row.interval?.lower, upper: row.interval?.upper) }
                        ],
                        note: "\(row.conversions)/\(row.units)")
                })
            let fallback = HTMLTable(
                caption: chart.title, header: ["variant", "units", "conversions", "rate", "\(percent)% CI"],
                rows: metric.variants.map { row in
                    HTMLTable.Row(
                        key: "\(metric.metric)/\(row.variant)",
                        cells: [
                            HTMLTable.Cell(row.variant), .count(row.units), .count(row.conversions), .percent(row.rate),
                            HTMLTable.Cell(NumberText.interval(row.interval)),
                        ])
                }, numericColumns: [1, 2, 3])
            html += chart.chart().figure(fallback: fallback)
            html += "<div class=\"table-wrap\">" + comparisonTable(metric, percent: percent).render() + "</div>\n"
        }
        for (funnel, (title, table)) in zip(funnels ?? [], funnelTables) {
            html +=
                "<h3>\(HTML.escape(title))</h3>\n<div class=\"table-wrap\">"
                + HTMLTable(
                    caption: title, header: table.header,
                    rows: zip(funnel.variants.flatMap { row in funnel.steps.map { (row.variant, $0) } }, table.rows).map
                    {
                        key, cells in
                        HTMLTable.Row(key: "\(key.0)/\(key.1)", cells: cells.map { HTMLTable.Cell($0) })
                    }, numericColumns: [2, 3, 4, 5], name: "experiment-funnel-\(funnel.flow)"
                ).render() + "</div>\n<p class=\"note\">\(HTML.escape(funnel.note))</p>\n"
        }
        return html
    }

    private var htmlSubtitle: String {
        var text =
            "\(units) \(unit.rawValue)s, control \(control), \(engine.rawValue) engine; \(correctionName)-adjusted across "
            + "\(comparisons) comparisons; minimum detectable effect \(Self.points(mde))."
        if let sequential {
            text +=
                " Sequential: \(sequential.method); N* = \(Int(sequential.tuning)); looks tolerated: \(sequential.looks)."
        }
        return text
    }

    private func comparisonTable(_ metric: MetricResult, percent: Int) -> HTMLTable {
        HTMLTable(
            caption: "\(metric.metric): versus \(control)",
            header: [
                "variant", "difference", (sequential == nil ? "" : "always-valid ") + "\(percent)% CI", "relative",
                "p (\(correctionName))", "significant", "chance to beat",
                "units per arm still needed",
            ],
            rows: metric.comparisons.map { row in
                HTMLTable.Row(
                    key: "\(metric.metric)/\(row.variant)/comparison",
                    cells: [
                        HTMLTable.Cell(row.variant),
                        HTMLTable.Cell(Self.points(row.absoluteDifference), value: HTML.exact(row.absoluteDifference)),
                        HTMLTable.Cell(
                            NumberText.interval(sequential == nil ? row.absoluteInterval : row.sequentialInterval)),
                        .percent(row.relativeDifference),
                        HTMLTable.Cell(Self.probability(row.adjustedPValue), value: HTML.exact(row.adjustedPValue)),
                        HTMLTable.Cell(row.significant ? "yes" : "no"), .percent(row.chanceToBeatControl),
                        HTMLTable.Cell(row.additionalUnitsPerArm.map(String.init) ?? "–"),
                    ])
            }, numericColumns: [1, 3, 4, 6, 7], name: "comparisons")
    }

    private static func probability(_ value: Double?) -> String {
        guard let value else { return "–" }
        return value < 0.0001 ? "< 0.0001" : String(format: "%.4f", value)
    }
}
