import Foundation
import OnboardMetricsAnalysis

extension ConformanceReport {
    /// The deviation table: kind, flow, step, occurrences, sessions, examples.
    public var deviationTable: TextTable {
        let rows = deviations.map {
            [
                $0.kind.rawValue, $0.flowID ?? "", $0.stepID ?? "", String($0.occurrences), String($0.sessions),
                $0.exampleSessions.joined(separator: " "),
            ]
        }
        return TextTable(
            header: ["kind", "flow", "step", "occurrences", "sessions", "example sessions"], rows: rows,
            numericColumns: [3, 4])
    }

    /// The fitness histogram.
    public var histogramTable: TextTable {
        let rows = histogram.map { bucket in
            [
                String(format: "%.1f–%.1f", bucket.lower, bucket.upper), String(bucket.sessions),
                NumberText.percent(sessions == 0 ? nil : Double(bucket.sessions) / Double(sessions)),
            ]
        }
        return TextTable(header: ["fitness", "sessions", "share"], rows: rows, numericColumns: [1, 2])
    }

    /// The headline figures.
    public var summaryTable: TextTable {
        let number = { (value: Double?) in value.map { String(format: "%.3f", $0) } ?? "–" }
        return TextTable(
            header: ["sessions", "perfect fit", "share", "deviations", "fitness mean", "p10", "median", "p90"],
            rows: [
                [
                    String(sessions), String(perfectlyFitting), NumberText.percent(perfectlyFittingShare),
                    String(deviationCount), number(fitness.mean), number(fitness.p10), number(fitness.median),
                    number(fitness.p90),
                ]
            ], numericColumns: Set(0..<8))
    }

    /// The report in a format: text and Markdown hold the summary, histogram and deviations; CSV
    /// the deviation table; JSON everything (stable snake_case keys).
    public func rendered(_ format: ReportFormat) throws -> String {
        switch format {
        case .json: return try ReportJSON.encode(self)
        case .csv: return deviationTable.csv
        case .markdown:
            return "## Conformance: \(flowID) v\(flowVersion)\n\n" + summaryTable.markdown + "\n\n### Fitness\n\n"
                + histogramTable.markdown + "\n\n### Deviations\n\n" + deviationTable.markdown
        case .text:
            return "Conformance of \(flowID) v\(flowVersion): \(sessions) sessions, "
                + "\(otherFlowSessions) of other flows skipped\n\n" + summaryTable.text + "\n\n"
                + histogramTable.text + "\n\n" + (deviations.isEmpty ? "no deviations" : deviationTable.text)
        }
    }
}
