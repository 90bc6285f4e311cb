import Foundation
import OnboardMetricsAnalysis
import OnboardMetricsReader
import OnboardMetricsStatistics

extension DiscoveryReport {
    /// One row per highlight: shown, knew, eligible, discovered, rate and CI, time to discovery,
    /// baseline and uplift with CI.
    public var table: TextTable {
        let rows = highlights.map { row in
            [
                row.highlight, row.feature ?? "", String(row.shown), String(row.alreadyKnew), String(row.eligible),
                String(row.discovered), NumberText.percent(row.rate), NumberText.interval(row.interval),
                NumberText.seconds(row.timeToDiscovery.median), String(row.baseline.units),
                NumberText.percent(row.baseline.rate), NumberText.points(row.uplift),
                NumberText.interval(row.upliftInterval),
            ]
        }
        let percent = Int((level * 100).rounded())
        return TextTable(
            header: [
                "highlight", "feature", "shown", "already knew", "eligible", "discovered", "rate", "\(percent)% CI",
                "time to discovery p50", "baseline units", "baseline rate", "uplift", "\(percent)% CI",
            ], rows: rows, numericColumns: Set(2..<13))
    }

    /// Units per highlight and first dismissal reason, with their discovery rate.
    public var dismissalTable: TextTable {
        let rows = highlights.flatMap { row in
            row.dismissed.map {
                [
                    row.highlight, $0.reason, String($0.units), String($0.eligible), String($0.discovered),
                    NumberText.percent($0.rate),
                ]
            }
        }
        return TextTable(
            header: ["highlight", "dismissed", "units", "eligible", "discovered", "rate"], rows: rows,
            numericColumns: [2, 3, 4, 5])
    }

    /// The comparison with the randomized holdout, one row per highlight; `nil` without one.
    public var holdoutTable: TextTable? {
        guard let holdout else { return nil }
        let percent = Int((level * 100).rounded())
        let rows = holdout.rows.map { row in
            [
                row.highlight, row.feature ?? "", NumberText.percent(row.shownAmongTreated),
                String(row.treated.eligible),
                String(row.treated.discovered), NumberText.percent(row.treated.rate), String(row.holdout.eligible),
                String(row.holdout.discovered), NumberText.percent(row.holdout.rate), NumberText.points(row.difference),
                NumberText.interval(row.interval), row.pValue.map { String(format: "%.2g", $0) } ?? "–",
            ]
        }
        return TextTable(
            header: [
                "highlight", "feature", "shown (treated)", "treated eligible", "discovered", "rate",
                "holdout eligible", "discovered", "rate", "difference", "\(percent)% CI", "p",
            ], rows: rows, numericColumns: Set(2..<12))
    }

    /// The holdout's title line.
    var holdoutTitle: String {
        guard let holdout else { return "" }
        return "Randomized holdout: experiment \(holdout.experiment), variant \(holdout.holdoutVariant) never shown "
            + "the highlight, against \(holdout.treatedVariants.joined(separator: ", ")) (intention to treat; "
            + "the baseline above is observational)"
    }

    /// The report in a format: text and Markdown hold both tables; CSV the highlight table; JSON
    /// everything (stable snake_case keys).
    public func rendered(_ format: ReportFormat) throws -> String {
        let title =
            "Feature discovery per \(unit.rawValue), window \(DurationText.format(windowSeconds)): \(units) \(unit.rawValue)s"
        switch format {
        case .json: return try ReportJSON.encode(self)
        case .csv: return table.csv
        case .markdown:
            return "## \(title)\n\n" + table.markdown + "\n\n### Dismissals\n\n" + dismissalTable.markdown
                + (holdoutTable.map { "\n\n### \(holdoutTitle)\n\n" + $0.markdown } ?? "")
        case .text:
            guard !highlights.isEmpty else { return title + "\n\nno highlight was shown" }
            return title + "\n\n" + table.text + "\n\n" + dismissalTable.text
                + (holdoutTable.map { "\n\n" + holdoutTitle + "\n\n" + $0.text } ?? "")
        }
    }
}
