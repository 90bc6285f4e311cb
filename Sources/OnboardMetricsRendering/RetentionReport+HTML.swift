import OnboardMetricsAnalysis

extension RetentionReport: HTMLReportSection {
    /// `retention-<flow id>`.
    public var htmlSectionID: String { "retention-" + HTML.identifier(flowID) }

    /// "Retention after <flow>".
    public var htmlSectionTitle: String { "Retention after \(flowID)" }

    /// The report as a self-contained HTML page (see ``HTMLDocument``).
    public func html() -> String {
        HTMLDocument(title: htmlSectionTitle, subtitle: title, sections: [self]).render()
    }

    /// A retention curve per group (rate per day with its interval as a band), then the table.
    public func htmlSectionBody() -> String {
        let percent = Int((level * 100).rounded())
        var html = "<p class=\"note\">\(HTML.escape(title)). \(HTML.escape(footnote))</p>\n"
        guard units > 0 else { return html + "<p>No onboarding session of the flow in the data read.</p>\n" }
        let labels = days.map { "day \($0)" }
        let chart = SVGLineChart(
            id: htmlSectionID + "-curve", title: "Retained on day N after onboarding, by \(by)",
            description: "One line per group: the share of \(unit.rawValue)s observed for the whole of day N "
                + "that had an event on day N, with its \(percent)% Wilson interval as a band.",
            labels: labels,
            series: groups.enumerated().map { index, group in
                SVGLineChart.Series(
                    label: group.group, color: SVGLineChart.palette[index % SVGLineChart.palette.count],
                    points: group.days.map { day in
                        day.rate.map {
                            SVGLineChart.Point(
                                value: $0, lower: day.interval?.lower, upper: day.interval?.upper, provisional: false,
                                note: "\(day.retained)/\(day.eligible)")
                        }
                    })
            })
        let fallback = HTMLTable(
            caption: chart.title, header: [by, "day", "rate"],
            rows: groups.flatMap { group in
                group.days.map { day in
                    HTMLTable.Row(
                        key: "\(group.group)/\(day.day)",
                        cells: [HTMLTable.Cell(group.group), .count(day.day), .percent(day.rate)])
                }
            }, numericColumns: [1, 2], className: "sr-only")
        html += chart.chart().figure(fallback: fallback)
        let byKey = Dictionary(
            differences.map { ("\($0.group)/\($0.day)", $0) }, uniquingKeysWith: { first, _ in first })
        let rows = groups.flatMap { group in
            group.days.map { day in
                let difference = byKey["\(group.group)/\(day.day)"]
                return HTMLTable.Row(
                    key: "\(group.group)/\(day.day)",
                    cells: [
                        HTMLTable.Cell(group.group), .count(group.units), .count(day.day), .count(day.eligible),
                        .count(day.retained), .percent(day.rate), HTMLTable.Cell(NumberText.interval(day.interval)),
                        difference.map {
                            HTMLTable.Cell(NumberText.points($0.difference), value: HTML.exact($0.difference))
                        }
                            ?? HTMLTable.Cell("reference"),
                        HTMLTable.Cell(difference.map { NumberText.interval($0.interval) } ?? ""),
                    ])
            }
        }
        html +=
            "<div class=\"table-wrap\">"
            + HTMLTable(
                caption: "Retention by \(by)",
                header: [
                    by, "units", "day", "eligible", "retained", "rate", "\(percent)% CI", "vs \(reference ?? "-")",
                    "\(percent)% CI",
                ], rows: rows, numericColumns: [1, 2, 3, 4, 5, 7], name: "retention"
            ).render() + "</div>\n"
        return html
    }
}
