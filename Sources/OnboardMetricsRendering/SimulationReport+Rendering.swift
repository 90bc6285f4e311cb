import Foundation
import OnboardMetricsAnalysis
import OnboardMetricsStatistics

extension SimulationReport {
    /// Completion forecast, recorded completion, the delta, the back-test and the A/B test size.
    public var summaryTable: TextTable {
        let percent = Int((level * 100).rounded())
        let rows = [
            ["forecast completion (candidate)", Self.rate(forecastCompletion)],
            ["recorded completion (baseline)", Self.rate(observedCompletion)],
            [
                "delta",
                NumberText.points(completionDelta.value) + "  [" + Self.pointsInterval(completionDelta.interval)
                    + "]",
            ],
            [
                "back-test: simulated baseline",
                Self.rate(backTest.forecastCompletion)
                    + (backTest.withinInterval
                        ? "  recorded within the interval" : "  RECORDED OUTSIDE THE INTERVAL"),
            ],
            [
                "A/B test to confirm the delta",
                sampleSizePerArm.map {
                    "\($0) sessions per arm (α = \(alpha), \(Int((power * 100).rounded()))% power)"
                } ?? "– (no change forecast)",
            ],
        ]
        return TextTable(header: ["", "value [\(percent)% interval]"], rows: rows, numericColumns: [])
    }

    /// One row per candidate step: the forecast with its interval beside the baseline's numbers.
    public var table: TextTable {
        let percent = Int((level * 100).rounded())
        let header = [
            "step", "source", "eligible", "viewed", "conv. start", "\(percent)% interval", "dropped", "skipped",
            "continue", "recorded conv.", "recorded continue", "time on step p50",
        ]
        let rows = steps.map { row in
            [
                row.step + (row.condition.map { " [\($0)]" } ?? ""), row.source, String(row.eligible),
                Self.count(row.viewed), NumberText.percent(row.conversionFromStart.value),
                NumberText.interval(row.conversionFromStart.interval), Self.count(row.droppedHere),
                Self.count(row.skipped), NumberText.percent(row.continuationRate),
                NumberText.percent(row.observed?.conversionFromStart),
                NumberText.percent(row.observed?.continuationRate),
                NumberText.seconds(row.observed?.timeOnStepMedian),
            ]
        }
        return TextTable(header: header, rows: rows, numericColumns: Set(2..<header.count))
    }

    /// One line: which flow is forecast from how many sessions of which, and the bootstrap.
    public var title: String {
        var text =
            "Forecast of \(candidateFlowID) v\(candidateFlowVersion) from \(data.sessions) finished sessions "
            + "(\(data.users) users) of \(baselineFlowID) v\(baselineFlowVersion); \(draws) bootstrap draws, seed \(seed)"
        if let variant { text += "; variant \(variant.experiment):\(variant.variant) only" }
        return text
    }

    var removedLine: String? {
        removedSteps.isEmpty ? nil : "removed from the baseline: " + removedSteps.joined(separator: ", ")
    }

    /// The report in a format: text and Markdown hold the summary, the steps and the assumptions;
    /// CSV the step table; JSON everything (stable snake_case keys).
    public func rendered(_ format: ReportFormat) throws -> String {
        switch format {
        case .json: return try ReportJSON.encode(self)
        case .csv: return table.csv
        case .markdown:
            return "## \(title)\n\n" + summaryTable.markdown + "\n\n" + table.markdown + "\n\n"
                + (removedLine.map { $0 + "\n\n" } ?? "") + "### Assumptions\n\n"
                + assumptions.map { "- " + $0 }.joined(separator: "\n")
        case .text:
            return title + "\n\n" + summaryTable.text + "\n\n" + table.text + "\n\n"
                + (removedLine.map { $0 + "\n\n" } ?? "") + "Assumptions:\n"
                + assumptions.map { "- " + $0 }.joined(separator: "\n")
        }
    }

    static func rate(_ estimate: Estimate) -> String {
        NumberText.percent(estimate.value) + "  [" + NumberText.interval(estimate.interval) + "]"
    }

    static func pointsInterval(_ interval: ConfidenceInterval?) -> String {
        guard let interval else { return "–" }
        return String(format: "%+.1f – %+.1f pp", interval.lower * 100, interval.upper * 100)
    }

    static func count(_ value: Double) -> String {
        String(format: "%.0f", value)
    }
}
