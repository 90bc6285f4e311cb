import Foundation
import OnboardMetricsAnalysis
import OnboardMetricsStatistics

extension ComparisonReport {
    /// The correction's short name: Holm or BH (Benjamini–Hochberg).
    var correctionName: String { correction == .holm ? "Holm" : "BH" }

    /// One row per step (then completion): each cohort's conversion, the difference with its
    /// interval, p-values, skip-rate and time-on-step changes, and the verdict.
    public var table: TextTable {
        let percent = Int((level * 100).rounded())
        let header = [
            "step", "A entered", "A conv.", "B entered", "B conv.", "diff", "\(percent)% CI", "p",
            "\(correctionName) p",
            "skip diff",
            "skip p", "time p50 diff", "time p", "verdict",
        ]
        let rows = self.rows.map { row in
            [
                row.step, String(row.a.entered), NumberText.percent(row.a.conversion), String(row.b.entered),
                NumberText.percent(row.b.conversion), NumberText.points(row.difference),
                ExperimentReport.signedInterval(row.differenceInterval), ExperimentReport.pValue(row.pValue),
                ExperimentReport.pValue(row.adjustedPValue), NumberText.points(row.skipRateDifference),
                ExperimentReport.pValue(row.skipRatePValue), Self.signedSeconds(row.timeOnStepMedianDifference),
                ExperimentReport.pValue(row.timeOnStepPValue), verdict(row),
            ]
        }
        return TextTable(header: header, rows: rows, numericColumns: Set(1..<13))
    }

    /// "REGRESSION", "better", "worse", "too few sessions" or empty.
    func verdict(_ row: Row) -> String {
        if row.regression { return "REGRESSION" }
        var words: [String] = []
        if row.significant, let difference = row.difference { words.append(difference < 0 ? "worse" : "better") }
        if row.underpowered { words.append("too few sessions") }
        return words.joined(separator: ", ")
    }

    /// Title: the flow and the two cohorts.
    public var title: String {
        "Compare \(flowID) v\(flowVersion): A = \(a.cohort) (\(a.started) sessions), "
            + "B = \(b.cohort) (\(b.started) sessions)"
    }

    /// The gate's outcome in one line, or what the report tested without a gate.
    public var gateLine: String {
        guard let threshold = regressionThreshold else {
            return "no gate (--fail-on-regression PP); \(correctionName) over \(comparisons) rows at alpha \(alpha)"
        }
        let points = String(format: "%.1f", threshold * 100)
        if regressions.isEmpty {
            return
                "PASS: no step's conversion fell by more than \(points) points with \(correctionName)-adjusted p < \(alpha)"
        }
        return "FAIL: \(regressions.joined(separator: ", ")) fell by more than \(points) points "
            + "(\(correctionName)-adjusted p < \(alpha))"
    }

    /// The report in a format: text and Markdown hold a title, the gate, the table, warnings and
    /// methods; CSV the table; JSON everything (stable snake_case keys).
    public func rendered(_ format: ReportFormat) throws -> String {
        let notes = (warnings.map { "warning: " + $0 } + ["methods: " + methods]).joined(separator: "\n")
        switch format {
        case .json: return try ReportJSON.encode(self)
        case .csv: return table.csv
        case .markdown:
            return "## \(title)\n\n**\(gateLine)**\n\n\(table.markdown)\n\n"
                + (warnings.map { "- warning: " + $0 } + ["- methods: " + methods]).joined(separator: "\n")
        case .text: return "\(title)\n\(gateLine)\n\n\(table.text)\n\n\(notes)"
        }
    }

    static func signedSeconds(_ value: Double?) -> String {
        guard let value else { return "–" }
        return (value >= 0 ? "+" : "−") + NumberText.seconds(abs(value))
    }
}
