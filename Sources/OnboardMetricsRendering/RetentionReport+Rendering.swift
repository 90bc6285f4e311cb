import Foundation
import OnboardMetricsAnalysis
import OnboardMetricsReader
import OnboardMetricsStatistics

extension RetentionReport {
    /// One row per group and day: units, eligible, retained, rate with its interval, and the
    /// difference from the reference group with its interval.
    public var table: TextTable {
        let percent = Int((level * 100).rounded())
        let byKey = Dictionary(
            differences.map { ("\($0.group)/\($0.day)", $0) }, uniquingKeysWith: { first, _ in first })
        let rows = groups.flatMap { group in
            group.days.map { day in
                let difference = byKey["\(group.group)/\(day.day)"]
                return [
                    group.group, String(group.units), "day \(day.day)", String(day.eligible), String(day.retained),
                    NumberText.percent(day.rate), NumberText.interval(day.interval),
                    difference.map { NumberText.points($0.difference) } ?? "reference",
                    difference.map { NumberText.interval($0.interval) } ?? "",
                ]
            }
        }
        return TextTable(
            header: [
                by, "units", "day", "eligible", "retained", "rate", "\(percent)% CI", "vs \(reference ?? "-")",
                "\(percent)% CI",
            ], rows: rows, numericColumns: [1, 3, 4, 5, 6, 7, 8])
    }

    /// The group the others are compared with.
    var reference: String? { differences.first?.reference }

    /// One line saying what was counted.
    var title: String {
        "Retention after \(flowID) per \(unit.rawValue), by \(by): \(units) \(unit.rawValue)s"
            + (dataEnd.map { ", data until \(ISO8601DateFormatter().string(from: $0))" } ?? "")
    }

    /// How to read the figures.
    var footnote: String {
        "Day N retained: any event in [start + N days, start + N + 1 days); a unit counts for day N only "
            + "when the data reaches N + 1 days past its start. Association, not cause: who completes "
            + "onboarding may differ from who drops in other ways."
    }

    /// The report in a format: JSON everything (stable snake_case keys); CSV the table.
    public func rendered(_ format: ReportFormat) throws -> String {
        switch format {
        case .json: return try ReportJSON.encode(self)
        case .csv: return table.csv
        case .markdown: return "## \(title)\n\n" + table.markdown + "\n\n" + footnote
        case .text:
            guard units > 0 else { return title + "\n\nno onboarding session of the flow in the data read" }
            return title + "\n\n" + table.text + "\n\n" + footnote
        }
    }
}
