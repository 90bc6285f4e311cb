import Foundation
import OnboardMetricsAnalysis

extension TrendReport {
    /// One row per series and period: counts, completion rate with its interval, a mark for
    /// periods mostly in progress, and each step's conversion from the start.
    public var table: TextTable {
        let percent = Int((level * 100).rounded())
        let hasBreakdown = breakdownBy != nil
        var header = hasBreakdown ? [breakdownBy ?? ""] : []
        header += ["period", "started", "completed", "in progress", "completion", "\(percent)% CI", "note"]
        header += steps
        var rows: [[String]] = []
        for series in self.series {
            for period in series.periods {
                var cells = hasBreakdown ? [series.breakdown ?? ""] : []
                cells += [
                    period.label, String(period.started), String(period.completed), String(period.inProgress),
                    NumberText.percent(period.completionRate), NumberText.interval(period.interval),
                    period.note,
                ]
                cells += period.steps.map { NumberText.percent($0.conversion) }
                rows.append(cells)
            }
        }
        let offset = hasBreakdown ? 1 : 0
        var numeric = Set((offset + 1)..<(offset + 5))
        numeric.formUnion((offset + 7)..<header.count)
        return TextTable(header: header, rows: rows, numericColumns: numeric)
    }

    /// The periods without the step columns: period, counts, completion and interval, note.
    public var summaryTable: TextTable {
        let full = table
        let keep = full.header.count - steps.count
        return TextTable(
            header: Array(full.header.prefix(keep)), rows: full.rows.map { Array($0.prefix(keep)) },
            numericColumns: full.numericColumns.filter { $0 < keep })
    }

    /// A title line: flow, period length, window, report end.
    public var title: String {
        "Trend \(flowID) v\(flowVersion) by \(interval.rawValue)"
            + (breakdownBy.map { " and \($0)" } ?? "") + ", window \(NumberText.duration(windowSeconds)), "
            + "as of \(ISO8601DateFormatter().string(from: reportEnd))"
    }

    /// What the figures mean, in one paragraph.
    public var footnote: String {
        "completion: completed among sessions started in the period and no longer in progress "
            + "(\(Int((level * 100).rounded()))% Wilson interval); step columns: viewed among eligible sessions. "
            + "\"mostly in progress\": over \(Int((inProgressThreshold * 100).rounded()))% of the period's sessions "
            + "are still under way, so its rates are provisional, not drops; \"provisional\": at least "
            + "\(Int((provisionalThreshold * 100).rounded()))% are, so its completion counts the sessions that "
            + "finished fast but not yet the slow ones."
    }

    /// The report in a format: text and Markdown hold a title, the table and a footnote; CSV the
    /// table; JSON everything (stable snake_case keys).
    public func rendered(_ format: ReportFormat) throws -> String {
        switch format {
        case .json: return try ReportJSON.encode(self)
        case .csv: return table.csv
        case .markdown: return "## \(title)\n\n\(table.markdown)\n\n\(footnote)"
        case .text:
            guard series.contains(where: { !$0.periods.isEmpty }) else {
                return title + "\n\nno sessions of '\(flowID)' in the data read"
            }
            return "\(title)\n\n\(table.text)\n\n\(footnote)"
        }
    }
}

extension TrendReport.Period {
    /// The table's note: whether the period's rate may still move.
    var note: String {
        if mostlyInProgress { return "mostly in progress" }
        guard provisional, let share = inProgressShare else { return "" }
        return "provisional: \(NumberText.percent(share)) in progress"
    }
}
