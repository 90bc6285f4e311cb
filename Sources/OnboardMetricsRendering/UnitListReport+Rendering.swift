import Foundation
import OnboardMetricsAnalysis
import OnboardMetricsReader
import OnboardMetricsSDK

extension UnitListReport {
    /// One row per unit: user id, session id, sessions, start, last event, outcome (times in UTC
    /// with milliseconds, as events are written).
    public var table: TextTable {
        TextTable(
            header: ["user_id", "session_id", "sessions", "start", "last_event", "outcome"],
            rows: rows.map {
                [
                    $0.userID, $0.sessionID.uuidString.lowercased(), String($0.sessions), Timestamp.string($0.start),
                    Timestamp.string($0.lastEvent), $0.outcome,
                ]
            }, numericColumns: [2])
    }

    /// One line saying who is listed.
    var title: String {
        let what = step.map { "\(status.rawValue) at \($0)" } ?? "\(status.rawValue) in the flow"
        return "\(units) \(unit.rawValue)s of \(flowID) v\(flowVersion) \(what), as of \(Timestamp.string(reportEnd))"
    }

    /// The list in a format: CSV and JSON for export (stable snake_case keys), text and Markdown to read.
    public func rendered(_ format: ReportFormat) throws -> String {
        switch format {
        case .json: return try ReportJSON.encode(self)
        case .csv: return table.csv
        case .markdown: return "## \(title)\n\n" + table.markdown
        case .text: return rows.isEmpty ? title : title + "\n\n" + table.text
        }
    }
}
