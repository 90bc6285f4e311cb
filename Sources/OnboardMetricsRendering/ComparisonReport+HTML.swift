import Foundation
import OnboardMetricsAnalysis
import OnboardMetricsStatistics

extension ComparisonReport: HTMLReportSection {
    /// `compare-<flow id>`.
    public var htmlSectionID: String { "compare-" + HTML.identifier(flowID) }

    /// "Compare: <flow>".
    public var htmlSectionTitle: String { "Compare: \(flowID)" }

    /// The report as a self-contained HTML page (see ``HTMLDocument``).
    public func html() -> String {
        HTMLDocument(title: htmlSectionTitle, subtitle: title, sections: [self]).render()
    }

    /// The gate's verdict, a chart of each row's conversion in A and B with intervals, the full
    /// table, warnings and methods.
    public func htmlSectionBody() -> String {
        let percent = Int((level * 100).rounded())
        let failed = passed == false
        var html = "<p class=\"note\">\(HTML.escape(title))</p>\n"
        html += "<p class=\"\(failed ? "warning" : "note")\">\(HTML.escape(gateLine))</p>\n"
        let chart = SVGIntervalChart(
            id: htmlSectionID + "-conversion", title: "Conversion per step: A versus B",
            description: "One row per step: the conversion from the previous step in cohort A (\(a.cohort)) and "
                + "cohort B (\(b.cohort)), each with its \(percent)% Wilson interval.",
            series: [.init(label: "A", color: "#7b7d7d"), .init(label: "B", color: "#2f5fb3")],
            rows: rows.map { row in
                SVGIntervalChart.Row(
                    label: row.step,
                    points: [row.a, row.b].map { side in
                        side.conversion.map {
                            .init(value: $0, lower: side.interval?.lower, upper: side.interval?.upper)
                        }
                    },
                    note: verdict(row))
            })
        let fallback = HTMLTable(
            caption: chart.title, header: ["step", "A", "B", "difference"],
            rows: rows.map { row in
                HTMLTable.Row(
                    key: row.step,
                    cells: [
                        HTMLTable.Cell(row.step), .percent(row.a.conversion), .percent(row.b.conversion),
                        HTMLTable.Cell(NumberText.points(row.difference), value: HTML.exact(row.difference)),
                    ])
            })
        html += chart.chart().figure(fallback: fallback)
        let table = HTMLTable(
            caption: "Steps: B − A",
            header: [
                "step", "A entered", "A conversion", "B entered", "B conversion", "difference", "\(percent)% CI",
                "\(correctionName) p", "skip-rate change", "time-on-step median change", "Mann-Whitney p", "verdict",
            ],
            rows: rows.map { row in
                HTMLTable.Row(
                    key: row.step,
                    cells: [
                        HTMLTable.Cell(row.step), .count(row.a.entered), .percent(row.a.conversion),
                        .count(row.b.entered), .percent(row.b.conversion),
                        HTMLTable.Cell(NumberText.points(row.difference), value: HTML.exact(row.difference)),
                        HTMLTable.Cell(ExperimentReport.signedInterval(row.differenceInterval)),
                        HTMLTable.Cell(
                            ExperimentReport.pValue(row.adjustedPValue), value: HTML.exact(row.adjustedPValue)),
                        HTMLTable.Cell(
                            NumberText.points(row.skipRateDifference), value: HTML.exact(row.skipRateDifference)),
                        HTMLTable.Cell(
                            Self.signedSeconds(row.timeOnStepMedianDifference),
                            value: HTML.exact(row.timeOnStepMedianDifference)),
                        HTMLTable.Cell(
                            ExperimentReport.pValue(row.timeOnStepPValue), value: HTML.exact(row.timeOnStepPValue)),
                        HTMLTable.Cell(verdict(row)),
                    ])
            }, numericColumns: Set(1..<11), name: "comparison")
        html += "<div class=\"table-wrap\">" + table.render() + "</div>\n"
        for warning in warnings { html += "<p class=\"warning\">\(HTML.escape(warning))</p>\n" }
        html += "<p class=\"note\">Methods: \(HTML.escape(methods)).</p>\n"
        return html
    }
}
