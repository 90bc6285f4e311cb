import Foundation

/// A flow funnel: per step of a flow, how many sessions (or users) it applied to, viewed,
/// completed, skipped, dropped there; conversion; time on step and from start — per breakdown group.
///
/// Build it with ``FunnelReport/build(flow:sessions:options:now:)`` from sessions in memory, or
/// ``FunnelReport/build(flow:reader:connection:options:now:progress:)`` from the database. Render
/// it with ``table(group:)`` (text, CSV, Markdown) or encode it as JSON (stable snake_case keys,
/// documented in the README).
public struct FunnelReport: Sendable, Hashable, Codable {
    /// Counts and times of one step.
    public struct StepRow: Sendable, Hashable, Codable {
        public var step: String
        /// The step's condition, if it has one.
        public var condition: String?
        /// Units the step applied to (its condition held), among those not in progress.
        public var eligible: Int
        public var viewed: Int
        public var completed: Int
        public var skipped: Int
        /// Units that dropped with this step as the last one they viewed.
        public var droppedHere: Int
        /// Units in progress whose last viewed step is this one (not in the other counts).
        public var inProgressHere: Int
        /// Viewed, among eligible units that viewed the previous step that applied to them (or started, for the first).
        public var conversionFromPrevious: Double?
        /// Viewed, among eligible units.
        public var conversionFromStart: Double?
        /// From the (last) view to the completion or skip.
        public var timeOnStep: DurationSummary
        /// From the unit's start to the first view.
        public var timeFromStart: DurationSummary
    }

    /// Totals of one group.
    public struct Totals: Sendable, Hashable, Codable {
        public var started: Int
        public var completed: Int
        public var dropped: Int
        public var inProgress: Int
        /// Completed, among units not in progress; `nil` when there are none.
        public var completionRate: Double?
        /// Dropped before viewing any step.
        public var droppedBeforeFirstStep: Int
    }

    /// The funnel of one breakdown value (or of everyone, `breakdown` nil).
    public struct Group: Sendable, Hashable, Codable {
        public var breakdown: String?
        public var totals: Totals
        public var steps: [StepRow]
    }

    public var flowID: String
    public var flowVersion: Int
    public var unit: FunnelOptions.Unit
    public var windowSeconds: Double
    public var inactivitySeconds: Double
    public var since: Date?
    public var until: Date?
    /// The instant dropped and in progress were judged at.
    public var reportEnd: Date
    /// The breakdown property, if any.
    public var breakdownBy: String?
    public var groups: [Group]
    /// Sessions read that belong to other flows (not counted).
    public var otherFlowSessions: Int
}

extension FunnelReport {
    /// Builds the report from sessions in memory.
    /// - Parameters:
    ///   - flow: the flow whose steps are counted; sessions of other flows are skipped.
    ///   - sessions: recorded sessions.
    ///   - options: unit, window, inactivity, time range, breakdown.
    ///   - now: the report's end when neither `reportEnd` nor `until` is set.
    public static func build(flow: FlowDefinition, sessions: [RecordedSession], options: FunnelOptions, now: Date)
        -> FunnelReport
    {
        var aggregator = FunnelAggregator(flow: flow, options: options, now: now)
        for session in sessions { aggregator.add(session) }
        return aggregator.report()
    }

    /// Builds the report by streaming sessions out of PostgreSQL.
    /// - Throws: `PostgresError`.
    public static func build(
        flow: FlowDefinition, reader: SessionReader, connection: PostgresConnection, options: FunnelOptions, now: Date,
        progress: (Int) -> Void = { _ in }
    ) throws -> FunnelReport {
        var aggregator = FunnelAggregator(flow: flow, options: options, now: now)
        try reader.read(on: connection, progress: progress) { aggregator.add($0) }
        return aggregator.report()
    }

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
                    Self.percent(row.conversionFromPrevious), Self.percent(row.conversionFromStart),
                    Self.seconds(row.timeOnStep.median), Self.seconds(row.timeOnStep.p90),
                    Self.seconds(row.timeFromStart.median), Self.seconds(row.timeFromStart.p90),
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
                String(group.totals.inProgress), Self.percent(group.totals.completionRate),
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
            return "Funnel \(flowID) v\(flowVersion), per \(unit.rawValue), window \(Self.duration(windowSeconds)), "
                + "inactivity \(Self.duration(inactivitySeconds)), as of \(ISO8601DateFormatter().string(from: reportEnd))\n\n"
                + totalsTable.text + "\n\n" + table().text
        }
    }

    static func percent(_ value: Double?) -> String {
        value.map { String(format: "%.1f%%", $0 * 100) } ?? "–"
    }

    static func seconds(_ value: Double?) -> String {
        guard let value else { return "–" }
        return value < 100 ? String(format: "%.1fs", value) : duration(value)
    }

    static func duration(_ seconds: Double) -> String {
        if seconds >= 86_400, seconds.truncatingRemainder(dividingBy: 86_400) == 0 {
            return "\(Int(seconds / 86_400))d"
        }
        if seconds >= 3_600 { return String(format: "%.1fh", seconds / 3_600) }
        if seconds >= 60 { return String(format: "%.1fm", seconds / 60) }
        return String(format: "%.0fs", seconds)
    }
}

/// Stable JSON for reports: snake_case keys, sorted, ISO 8601 dates.
public enum ReportJSON {
    /// Encodes a report.
    /// - Throws: `EncodingError` when a value cannot be encoded.
    public static func encode<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
