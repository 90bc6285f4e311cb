import Foundation

/// An ad-hoc funnel's result: per step, how many units (sessions or users) reached at least that
/// step, conversion, and time to convert. Build it with ``AdHocFunnel/build(sessions:)`` or
/// ``AdHocFunnel/build(reader:connection:progress:)``; render it with ``rendered(_:)``.
///
/// JSON (``ReportJSON``, sorted snake_case keys): `steps`, `order`, `unit`, `window_seconds`,
/// `units`, and `rows`, each with `step`, `count`, `conversion_from_previous`,
/// `conversion_from_start`, `time_to_convert` and `time_from_start` (`count`, `median`, `p90`,
/// seconds; absent values are omitted).
public struct AdHocFunnelReport: Sendable, Hashable, Codable {
    /// One step of the funnel.
    public struct Row: Sendable, Hashable, Codable {
        /// The step name; in any order, "any k of n".
        public var step: String
        /// Units whose furthest step is this one or a later one.
        public var count: Int
        /// `count` over the previous row's; `nil` for the first step or when the previous count is 0.
        public var conversionFromPrevious: Double?
        /// `count` over the first row's; `nil` when that is 0.
        public var conversionFromStart: Double?
        /// From the previous step to this one, within each unit's reported chain (none for step 1).
        public var timeToConvert: DurationSummary
        /// From the chain's first step to this one.
        public var timeFromStart: DurationSummary
    }

    /// The step names as given.
    public var steps: [String]
    public var order: AdHocFunnel.Order
    public var unit: FunnelOptions.Unit
    public var windowSeconds: Double
    /// Units read (sessions, or users), whether or not they reached step 1.
    public var units: Int
    public var rows: [Row]

    /// The step table: step, count, conversions, median times.
    public func table() -> TextTable {
        let header = ["step", "count", "conv. prev", "conv. start", "time to convert p50", "p90", "from start p50"]
        let cells = rows.map { row in
            [
                row.step, String(row.count), FunnelReport.percent(row.conversionFromPrevious),
                FunnelReport.percent(row.conversionFromStart), FunnelReport.seconds(row.timeToConvert.median),
                FunnelReport.seconds(row.timeToConvert.p90), FunnelReport.seconds(row.timeFromStart.median),
            ]
        }
        return TextTable(header: header, rows: cells, numericColumns: Set(1..<header.count))
    }

    /// The report in a format: text and Markdown with a title line, CSV the step table, JSON all fields.
    /// - Throws: `EncodingError` (JSON only).
    public func rendered(_ format: ReportFormat) throws -> String {
        let title =
            "Ad-hoc funnel \(steps.joined(separator: " → ")) (\(order.rawValue), per \(unit.rawValue), "
            + "window \(FunnelReport.duration(windowSeconds)), \(units) \(unit.rawValue)s)"
        switch format {
        case .json: return try ReportJSON.encode(self)
        case .csv: return table().csv
        case .markdown: return "## \(title)\n\n" + table().markdown
        case .text: return title + "\n\n" + table().text
        }
    }
}

extension AdHocFunnel {
    /// Builds the report from sessions in memory.
    public func build(sessions: [RecordedSession]) -> AdHocFunnelReport {
        var aggregator = AdHocFunnelAggregator(funnel: self)
        for session in sessions { aggregator.add(session) }
        return aggregator.report()
    }

    /// Builds the report by streaming sessions out of PostgreSQL.
    ///
    /// Per session, memory is what the reader holds (the sessions open at once) plus two floats
    /// per unit and step for the time summaries. Per user, every user's matched events are held
    /// until the end — 24 bytes an event (all events in strict order, since they break chains;
    /// only the matched ones otherwise) plus the user id.
    /// - Parameters:
    ///   - reader: the events to read; its `closeAfter` should cover the longest session.
    ///   - connection: the database.
    ///   - progress: called every 100,000 events with the count so far.
    /// - Throws: `PostgresError`.
    public func build(reader: SessionReader, connection: PostgresConnection, progress: (Int) -> Void = { _ in })
        throws -> AdHocFunnelReport
    {
        var aggregator = AdHocFunnelAggregator(funnel: self)
        try reader.read(on: connection, progress: progress) { aggregator.add($0) }
        return aggregator.report()
    }
}

/// Counts units' reaches into an ``AdHocFunnelReport``: per session as they come, per user at the end.
struct AdHocFunnelAggregator: Sendable {
    let funnel: AdHocFunnel
    var units = 0
    /// Units by depth reached (index 0: none).
    var byDepth: [Int]
    var toConvert: [[Double]]
    var fromStart: [[Double]]
    var users: [String: [AdHocEvent]] = [:]

    init(funnel: AdHocFunnel) {
        self.funnel = funnel
        byDepth = Array(repeating: 0, count: funnel.steps.count + 1)
        toConvert = Array(repeating: [], count: funnel.steps.count)
        fromStart = toConvert
    }

    mutating func add(_ session: RecordedSession) {
        var events = funnel.compactEvents(session.events)
        switch funnel.unit {
        case .session: count(funnel.reach(&events))
        case .user:
            // Take the user's list out while it grows, so it is not copied.
            var held = users.removeValue(forKey: session.userID) ?? []
            held.append(contentsOf: events)
            users[session.userID] = held
        }
    }

    private mutating func count(_ reach: AdHocFunnel.Reach) {
        units += 1
        byDepth[reach.depth] += 1
        for step in reach.times.indices.dropFirst() {
            toConvert[step].append(Double(reach.times[step] - reach.times[step - 1]) / 1_000_000)
            fromStart[step].append(Double(reach.times[step] - reach.times[0]) / 1_000_000)
        }
    }

    mutating func report() -> AdHocFunnelReport {
        for userID in users.keys.sorted() {
            var events = users[userID] ?? []
            count(funnel.reach(&events))
        }
        users.removeAll()
        var rows: [AdHocFunnelReport.Row] = []
        var atLeast = 0
        var counts = Array(repeating: 0, count: funnel.steps.count)
        for depth in stride(from: funnel.steps.count, through: 1, by: -1) {
            atLeast += byDepth[depth]
            counts[depth - 1] = atLeast
        }
        for (index, step) in funnel.steps.enumerated() {
            let label = funnel.order == .any ? "any \(index + 1) of \(funnel.steps.count)" : step
            rows.append(
                AdHocFunnelReport.Row(
                    step: label, count: counts[index],
                    conversionFromPrevious: index == 0 ? nil : Self.ratio(counts[index], counts[index - 1]),
                    conversionFromStart: Self.ratio(counts[index], counts[0]),
                    timeToConvert: DurationSummary(toConvert[index]), timeFromStart: DurationSummary(fromStart[index])))
        }
        return AdHocFunnelReport(
            steps: funnel.steps, order: funnel.order, unit: funnel.unit, windowSeconds: funnel.window, units: units,
            rows: rows)
    }

    private static func ratio(_ part: Int, _ whole: Int) -> Double? {
        whole == 0 ? nil : Double(part) / Double(whole)
    }
}
