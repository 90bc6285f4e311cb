import Foundation
import OnboardMetricsAnalysis

extension FunnelReport {
    /// The step table of a group (all groups when `nil`, with a breakdown column).
    public func table(group: Int? = nil) -> TextTable {
        let selected = group.map { [groups[$0]] } ?? groups
        let hasBreakdown = breakdownBy != nil
        var header = hasBreakdown ? [breakdownBy ?? ""] : []
        header += [
            "step", "eligible", "viewed", "completed", "skipped", "dropped", "in progress", "conv. prev", "conv. start",
            "time on step p50", "p90", "from start p50", "p90",
        ]
        var rows: [[String]] = []
        for group in selected {
            for row in group.steps {
                var cells = hasBreakdown ? [group.breakdown ?? ""] : []
                cells += [
                    row.step + (row.condition.map { " [\($0)]" } ?? ""), String(row.eligible), String(row.viewed),
                    String(row.completed), String(row.skipped), String(row.droppedHere), String(row.inProgressHere),
                    NumberText.percent(row.conversionFromPrevious), NumberText.percent(row.conversionFromStart),
                    NumberText.seconds(row.timeOnStep.median), NumberText.seconds(row.timeOnStep.p90),
                    NumberText.seconds(row.timeFromStart.median), NumberText.seconds(row.timeFromStart.p90),
                ]
                rows.append(cells)
            }
        }
        let offset = hasBreakdown ? 1 : 0
        return TextTable(header: header, rows: rows, numericColumns: Set((offset + 1)..<header.count))
    }

    /// The totals of every group.
    public var totalsTable: TextTable {
        let hasBreakdown = breakdownBy != nil
        let header =
            (hasBreakdown ? [breakdownBy ?? ""] : []) + [
                "started", "completed", "dropped", "in progress", "completion rate",
            ]
        let rows = groups.map { group in
            (hasBreakdown ? [group.breakdown ?? ""] : []) + [
                String(group.totals.started), String(group.totals.completed), String(group.totals.dropped),
                String(group.totals.inProgress), NumberText.percent(group.totals.completionRate),
            ]
        }
        return TextTable(header: header, rows: rows, numericColumns: Set((hasBreakdown ? 1 : 0)..<header.count))
    }

    /// The report in a format: text and Markdown hold a title, totals and steps; CSV the step table.
    public func rendered(_ format: ReportFormat) throws -> String {
        switch format {
        case .json: return try ReportJSON.encode(self)
        case .csv: return table().csv
        case .markdown:
            return "## Funnel: \(flowID) v\(flowVersion) (per \(unit.rawValue))\n\n" + totalsTable.markdown + "\n\n"
                + table().markdown
        case .text:
            return
                "Funnel \(flowID) v\(flowVersion), per \(unit.rawValue), window \(NumberText.duration(windowSeconds)), "
                + "inactivity \(NumberText.duration(inactivitySeconds)), as of \(ISO8601DateFormatter().string(from: reportEnd))\n\n"
                + totalsTable.text + "\n\n" + table().text
        }
    }
}
