import Foundation
import OnboardMetricsAnalysis
import OnboardMetricsReader

extension PathReport {
    /// One row per path: rank, units, share, then its events.
    public var table: TextTable {
        let rows = paths.enumerated().map { index, path in
            [String(index + 1), String(path.units), NumberText.percent(path.share)]
                + (0..<depth + 1).map { $0 < path.events.count ? path.events[$0] : "" }
        }
        let hasEnd = paths.contains { $0.events.count > depth }
        let columns = (1...max(1, depth)).map { "event \($0)" } + (hasEnd ? ["then"] : [])
        return TextTable(
            header: ["#", "units", "share"] + columns, rows: rows.map { Array($0.prefix(3 + columns.count)) },
            numericColumns: [0, 1, 2])
    }

    /// One line saying what was followed.
    var title: String {
        let what =
            switch mode {
            case "between": "Paths between \(between?.first ?? "") and \(between?.last ?? "")"
            default: "Paths after dropping out of \(flowID)" + (step.map { " at \($0)" } ?? "")
            }
        return what + " per \(unit.rawValue): \(units) \(unit.rawValue)s, \(distinctPaths) distinct paths"
    }

    /// How to read the paths.
    var footnote: String {
        mode == "between"
            ? "The events of the session strictly between the first view of the first step and the next view "
                + "of the second, up to \(depth); (nothing) when none came between."
            : "The person's next events after the unit's last event of the flow, in any session, within "
                + "\(DurationText.format(windowSeconds)), up to \(depth); (end): nothing more in that time."
    }

    /// The report in a format: JSON everything (stable snake_case keys); CSV the paths.
    public func rendered(_ format: ReportFormat) throws -> String {
        switch format {
        case .json: return try ReportJSON.encode(self)
        case .csv: return table.csv
        case .markdown: return "## \(title)\n\n" + table.markdown + "\n\n" + footnote
        case .text:
            guard units > 0 else { return title + "\n\nno unit to follow in the data read" }
            return title + "\n\n" + table.text + "\n\n" + footnote
        }
    }
}
