import Foundation
import OnboardMetricsAnalysis
import OnboardMetricsReader

extension CorrelationReport {
    /// One row per listed candidate of every group: the positive list, then the negative one.
    public var table: TextTable {
        let rows = listed.map { group, direction, row in
            [group.breakdown ?? "", direction, row.kind.rawValue, row.name]
                + [
                    String(row.successes), String(row.failures), Self.ratio(row.oddsRatio),
                    Self.probability(row.pValue),
                    Self.probability(row.adjustedPValue), row.significant ? "yes" : "",
                ]
        }
        var header = [
            "by", "direction", "kind", "candidate", "successes (s)", "failures (f)", "odds ratio", "p",
            "adjusted p (\(correction.rawValue))", "significant",
        ]
        var body = rows
        if breakdownBy == nil {
            header.removeFirst()
            body = rows.map { Array($0.dropFirst()) }
        }
        let offset = breakdownBy == nil ? 0 : 1
        return TextTable(header: header, rows: body, numericColumns: Set((3 + offset)..<(8 + offset)))
    }

    /// The listed rows with their group and direction (`positive`, `negative`), in report order.
    var listed: [(Group, String, Row)] {
        groups.flatMap { group in
            group.positive.map { (group, "positive", $0) } + group.negative.map { (group, "negative", $0) }
        }
    }

    /// The report in a format: text and Markdown with a summary per group and its warnings; CSV
    /// the table; JSON everything (stable snake_case keys).
    public func rendered(_ format: ReportFormat) throws -> String {
        switch format {
        case .json: return try ReportJSON.encode(self)
        case .csv: return table.csv
        case .markdown:
            return "## \(title)\n\n" + summaryLines.map { "- " + $0 }.joined(separator: "\n") + "\n\n"
                + table.markdown
        case .text:
            let summary = summaryLines.joined(separator: "\n")
            guard !listed.isEmpty else { return title + "\n\n" + summary + "\n\nno candidate to list" }
            return title + "\n\n" + summary + "\n\n" + table.text
        }
    }

    var title: String {
        let subject = step.map { "moving past step \($0) of \(flowID)" } ?? "completing \(flowID)"
        return "Correlation with \(subject) (v\(flowVersion)), per \(unit.rawValue), window "
            + DurationText.format(windowSeconds) + ": association, not cause"
    }

    /// Per group: successes, failures, left out, candidates and significant ones, warnings.
    var summaryLines: [String] {
        groups.flatMap { group -> [String] in
            let prefix = group.breakdown.map { "\(breakdownBy ?? "by") = \($0): " } ?? ""
            var line =
                prefix + "\(group.successes) successes, \(group.failures) failures "
                + "(success share \(NumberText.percent(group.successShare))); left out: \(group.inProgress) in progress"
            if step != nil { line += ", \(group.notEntered) never viewed the step" }
            line +=
                "; \(group.candidatesTested) candidates tested, \(group.significant) significant "
                + "(\(correction == .bh ? "Benjamini–Hochberg" : "Holm")-adjusted p < \(Self.probability(alpha)))"
            return [line] + group.warnings.map { "warning: " + prefix + $0 }
        } + (otherFlowSessions > 0 ? ["\(otherFlowSessions) sessions of other flows passed over"] : [])
    }

    static func ratio(_ value: Double) -> String {
        value >= 100 ? String(format: "%.0f", value) : String(format: "%.2f", value)
    }

    static func probability(_ value: Double) -> String {
        value < 0.0001 ? String(format: "%.1e", value) : String(format: "%.4f", value)
    }
}
