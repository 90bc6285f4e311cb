import OnboardMetricsAnalysis

extension SimulationReport: HTMLReportSection {
    /// `forecast-FLOW`.
    public var htmlSectionID: String { "forecast-" + HTML.identifier(candidateFlowID) }

    /// "Forecast: FLOW vN".
    public var htmlSectionTitle: String { "Forecast: \(candidateFlowID) v\(candidateFlowVersion)" }

    /// The report as a self-contained HTML page (see ``HTMLDocument``).
    public func html() -> String {
        HTMLDocument(title: htmlSectionTitle, subtitle: title, sections: [self]).render()
    }

    /// Completion forecast versus recorded (with the back-test), then per step the forecast
    /// conversion with its interval beside the baseline's recorded conversion, the step table and
    /// the assumptions — stated on the page, because a forecast is only as good as they are.
    public func htmlSectionBody() -> String {
        let percent = Int((level * 100).rounded())
        var html = "<p class=\"note\">\(HTML.escape(title))</p>\n"
        if !backTest.withinInterval {
            html +=
                "<p class=\"warning\">Back-test failed: simulating the baseline gives "
                + "\(HTML.escape(Self.rate(backTest.forecastCompletion))), but "
                + "\(HTML.escape(NumberText.percent(backTest.observedCompletion))) was recorded. The recordings do "
                + "not follow the baseline's navigator; check the --baseline flow before trusting the forecast.</p>\n"
        }
        let completion = SVGIntervalChart(
            id: "\(htmlSectionID)-completion", title: "Completion: forecast versus recorded",
            description: "Completion rate of the candidate (forecast), of the baseline simulated by the same model "
                + "(back-test) and as recorded, each with its \(percent)% bootstrap interval.",
            series: [.init(label: "completion", color: "#2f5fb3")],
            rows: [
                ("candidate (forecast)", forecastCompletion), ("baseline (back-test)", backTest.forecastCompletion),
                ("baseline (recorded)", observedCompletion),
            ].map { label, estimate in
                SVGIntervalChart.Row(
                    label: label,
                    points: [
                        estimate.value.map {
                            .init(value: $0, lower: estimate.interval?.lower, upper: estimate.interval?.upper)
                        }
                    ], note: NumberText.percent(estimate.value))
            })
        html += completion.chart().figure(fallback: summaryHTMLTable(caption: completion.title, percent: percent))
        let test =
            sampleSizePerArm.map {
                "An A/B test needs \($0) sessions per arm to confirm it (α = \(alpha), "
                    + "\(Int((power * 100).rounded()))% power)."
            } ?? "No change is forecast."
        html +=
            "<p data-key=\"completion-delta\" data-value=\"\(HTML.exact(completionDelta.value) ?? "")\">"
            + HTML.escape(
                "Completion delta: \(NumberText.points(completionDelta.value)) "
                    + "[\(Self.pointsInterval(completionDelta.interval))]. \(test)") + "</p>\n"
        let stepsChart = SVGIntervalChart(
            id: "\(htmlSectionID)-steps", title: "Reaching each step: forecast versus recorded",
            description: "Per candidate step, the share of eligible sessions expected to view it, with its "
                + "\(percent)% interval, and the share that viewed it in the recorded baseline.",
            series: [.init(label: "forecast", color: "#2f5fb3"), .init(label: "recorded", color: "#9aa3ad")],
            rows: steps.map { row in
                SVGIntervalChart.Row(
                    label: row.step,
                    points: [
                        row.conversionFromStart.value.map {
                            .init(
                                value: $0, lower: row.conversionFromStart.interval?.lower,
                                upper: row.conversionFromStart.interval?.upper)
                        },
                        row.observed?.conversionFromStart.map { .init(value: $0, lower: nil, upper: nil) },
                    ], note: row.source == "assumed" ? "assumed" : "")
            })
        html += stepsChart.chart().figure(fallback: stepHTMLTable(caption: stepsChart.title, percent: percent))
        html += "<div class=\"table-wrap\">" + stepHTMLTable(caption: "Forecast per step", percent: percent).render()
        html += "</div>\n"
        if let removedLine { html += "<p class=\"note\">\(HTML.escape(removedLine))</p>\n" }
        html += "<h3>Assumptions</h3>\n<ul>\n"
        html += assumptions.map { "<li>\(HTML.escape($0))</li>" }.joined(separator: "\n")
        html += "\n</ul>\n"
        return html
    }

    private func summaryHTMLTable(caption: String, percent: Int) -> HTMLTable {
        HTMLTable(
            caption: caption, header: ["", "completion", "\(percent)% interval"],
            rows: [
                ("forecast", forecastCompletion), ("back-test", backTest.forecastCompletion),
                ("recorded", observedCompletion),
            ].map { key, estimate in
                HTMLTable.Row(
                    key: key,
                    cells: [
                        HTMLTable.Cell(key), .percent(estimate.value),
                        HTMLTable.Cell(NumberText.interval(estimate.interval)),
                    ])
            }, numericColumns: [1], className: "sr-only", name: "forecast-summary")
    }

    private func stepHTMLTable(caption: String, percent: Int) -> HTMLTable {
        HTMLTable(
            caption: caption,
            header: [
                "step", "source", "eligible", "conv. start", "\(percent)% interval", "dropped", "skipped",
                "recorded conv.", "recorded continue",
            ],
            rows: steps.map { row in
                HTMLTable.Row(
                    key: row.step,
                    cells: [
                        HTMLTable.Cell(row.step), HTMLTable.Cell(row.source), .count(row.eligible),
                        .percent(row.conversionFromStart.value),
                        HTMLTable.Cell(NumberText.interval(row.conversionFromStart.interval)),
                        HTMLTable.Cell(Self.count(row.droppedHere), value: HTML.exact(row.droppedHere)),
                        HTMLTable.Cell(Self.count(row.skipped), value: HTML.exact(row.skipped)),
                        .percent(row.observed?.conversionFromStart), .percent(row.observed?.continuationRate),
                    ])
            }, numericColumns: [2, 3, 5, 6, 7, 8], name: "forecast-steps")
    }
}
