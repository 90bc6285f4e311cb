import Foundation
import OnboardMetricsAnalysis

extension AdHocFunnelReport {
    /// The step table: step, count, conversions, median times.
    public func table() -> TextTable {
        let header = ["step", "count", "conv. prev", "conv. start", "time to convert p50", "p90", "from start p50"]
        let cells = rows.map { row in
            [
                row.step, String(row.count), NumberText.percent(row.conversionFromPrevious),
                NumberText.percent(row.conversionFromStart), NumberText.seconds(row.timeToConvert.median),
                NumberText.seconds(row.timeToConvert.p90), NumberText.seconds(row.timeFromStart.median),
            ]
        }
        return TextTable(header: header, rows: cells, numericColumns: Set(1..<header.count))
    }

    /// The report in a format: text and Markdown with a title line, CSV the step table, JSON all fields.
    /// - Throws: `EncodingError` (JSON only).
    public func rendered(_ format: ReportFormat) throws -> String {
        let title =
            "Ad-hoc funnel \(steps.joined(separator: " → ")) (\(order.rawValue), per \(unit.rawValue), "
            + "window \(NumberText.duration(windowSeconds)), \(units) \(unit.rawValue)s)"
        switch format {
        case .json: return try ReportJSON.encode(self)
        case .csv: return table().csv
        case .markdown: return "## \(title)\n\n" + table().markdown
        case .text: return title + "\n\n" + table().text
        }
    }
}
