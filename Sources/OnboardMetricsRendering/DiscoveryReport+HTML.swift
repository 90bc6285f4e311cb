import OnboardMetricsAnalysis
import OnboardMetricsReader

extension DiscoveryReport: HTMLReportSection {
    /// `discovery`.
    public var htmlSectionID: String { "discovery" }

    /// "Feature discovery".
    public var htmlSectionTitle: String { "Feature discovery" }

    /// The report as a self-contained HTML page (see ``HTMLDocument``).
    public func html() -> String {
        HTMLDocument(title: htmlSectionTitle, subtitle: htmlSubtitle, sections: [self]).render()
    }

    /// Discovery rate and organic baseline per highlight with CI whiskers, the highlight table and
    /// the dismissal table.
    public func htmlSectionBody() -> String {
        var html = "<p class=\"note\">\(HTML.escape(htmlSubtitle))</p>\n"
        guard !highlights.isEmpty else { return html + "<p>No highlight was shown in the data read.</p>\n" }
        let percent = Int((level * 100).rounded())
        let chart = SVGIntervalChart(
            id: "discovery-rates", title: "Discovery rate after the highlight versus the organic baseline",
            description: "One row per highlight: the share of eligible \(unit.rawValue)s that used the feature "
                + "within the window after the first showing (blue), and the share of comparable \(unit.rawValue)s "
                + "never shown it that used it (grey); whiskers are \(percent)% confidence intervals.",
            series: [
                .init(label: "discovery rate", color: "#2f5fb3"), .init(label: "organic baseline", color: "#8a93a3"),
            ],
            rows: highlights.map { row in
                SVGIntervalChart.Row(
                    label: row.highlight,
                    points: [
                        row.rate.map { .init(value: $0, lower: row.interval?.lower, upper: row.interval?.upper) },
                        row.baseline.rate.map {
                            .init(value: $0, lower: row.baseline.interval?.lower, upper: row.baseline.interval?.upper)
                        },
                    ], note: "uplift " + NumberText.points(row.uplift))
            })
        let fallback = HTMLTable(
            caption: chart.title,
            header: ["highlight", "rate", "\(percent)% CI low", "high", "baseline", "uplift"],
            rows: highlights.map { row in
                HTMLTable.Row(
                    key: row.highlight,
                    cells: [
                        HTMLTable.Cell(row.highlight), .percent(row.rate), .percent(row.interval?.lower),
                        .percent(row.interval?.upper), .percent(row.baseline.rate),
                        HTMLTable.Cell(NumberText.points(row.uplift), value: HTML.exact(row.uplift)),
                    ])
            }, numericColumns: [1, 2, 3, 4, 5])
        html += chart.chart().figure(fallback: fallback)
        html += "<div class=\"table-wrap\">" + highlightTable(percent: percent).render() + "</div>\n"
        html += "<div class=\"table-wrap\">" + reasonTable().render() + "</div>\n"
        if let holdout, let table = holdoutTable {
            html +=
                "<h3>\(HTML.escape(holdoutTitle))</h3>\n<div class=\"table-wrap\">"
                + HTMLTable(
                    caption: "Discovery against the holdout", header: table.header,
                    rows: zip(holdout.rows, table.rows).map { row, cells in
                        HTMLTable.Row(
                            key: row.highlight,
                            cells: cells.enumerated().map { index, text in
                                switch index {
                                case 5: .percent(row.treated.rate)
                                case 8: .percent(row.holdout.rate)
                                case 9: HTMLTable.Cell(text, value: HTML.exact(row.difference))
                                default: HTMLTable.Cell(text)
                                }
                            })
                    }, numericColumns: Set(2..<12), name: "discovery-holdout"
                ).render() + "</div>\n"
        }
        return html
    }

    private var htmlSubtitle: String {
        "Per \(unit.rawValue), window \(DurationText.format(windowSeconds)): \(units) \(unit.rawValue)s read. "
            + "Units that used the feature before the first showing (already knew) leave the denominator."
    }

    private func highlightTable(percent: Int) -> HTMLTable {
        HTMLTable(
            caption: "Highlights",
            header: [
                "highlight", "feature", "shown", "already knew", "eligible", "discovered", "rate", "\(percent)% CI",
                "time to discovery p50", "baseline units", "baseline rate", "uplift", "\(percent)% CI",
            ],
            rows: highlights.map { row in
                HTMLTable.Row(
                    key: row.highlight,
                    cells: [
                        HTMLTable.Cell(row.highlight), HTMLTable.Cell(row.feature ?? ""), .count(row.shown),
                        .count(row.alreadyKnew), .count(row.eligible), .count(row.discovered), .percent(row.rate),
                        HTMLTable.Cell(NumberText.interval(row.interval)), .seconds(row.timeToDiscovery.median),
                        .count(row.baseline.units), .percent(row.baseline.rate),
                        HTMLTable.Cell(NumberText.points(row.uplift), value: HTML.exact(row.uplift)),
                        HTMLTable.Cell(NumberText.interval(row.upliftInterval)),
                    ])
            }, numericColumns: Set(2..<13), name: "highlights")
    }

    private func reasonTable() -> HTMLTable {
        HTMLTable(
            caption: "Dismissals (first dismissal reason) and discovery by reason",
            header: ["highlight", "dismissed", "units", "eligible", "discovered", "rate"],
            rows: highlights.flatMap { row in
                row.dismissed.map {
                    HTMLTable.Row(
                        key: row.highlight + "/" + $0.reason,
                        cells: [
                            HTMLTable.Cell(row.highlight), HTMLTable.Cell($0.reason), .count($0.units),
                            .count($0.eligible),
                            .count($0.discovered), .percent($0.rate),
                        ])
                }
            }, numericColumns: [2, 3, 4, 5], name: "dismissals")
    }
}
