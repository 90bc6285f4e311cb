import Foundation

/// Did people use a feature after a highlight (spotlight, tip) pointed at it?
///
/// Per highlight H of feature F (F from the events' `properties.feature`), over units (sessions,
/// or users with `--per user`):
/// - **shown**: units with a `highlight_shown` of H; the first showing is the unit's reference time.
/// - **already knew**: used F (`feature_used` named F) strictly before the first showing; they
///   leave the denominator. **eligible** = shown − already knew.
/// - **discovered**: eligible units that used F within the window after the first showing
///   (inclusive); **rate** = discovered / eligible, with a Wilson score interval.
/// - **time to discovery**: first showing → first such use (median, p90).
/// - **dismissed**: units by the reason of their first dismissal of H (TipKit's reasons; "(not
///   dismissed)" for none), each with its own discovery rate.
/// - **baseline** (organic rate): *comparable* units are those of the same flow — the flow(s) in
///   which H was shown at least once — that were never shown H. Their window starts at their
///   start (the session's first event; a user's first session); a unit counts when it used F
///   within it. A never-shown unit has no showing to be "before", so users who already knew F
///   stay in the baseline: the baseline is, if anything, high and the uplift conservative.
/// - **uplift** = rate − baseline rate, with Newcombe's hybrid score interval (method 10).
///
/// Per user, a user's sessions are merged (earliest showing, all feature uses, the flow of the
/// first session); the report then holds a small trace per user (highlights shown and feature-use
/// times, not events) until the read ends. Per session, nothing per unit is kept.
public struct DiscoveryReport: Sendable, Hashable, Codable {
    /// Units by the reason of their first dismissal.
    public struct ReasonRow: Sendable, Hashable, Codable {
        /// A TipKit reason (`actionPerformed`, `closed`, `displayCountExceeded`,
        /// `displayDurationExceeded`), another recorded reason, or "(not dismissed)".
        public var reason: String
        public var units: Int
        /// Those that did not already know the feature.
        public var eligible: Int
        public var discovered: Int
        /// discovered / eligible; `nil` when none are eligible.
        public var rate: Double?
    }

    /// The organic rate among comparable units never shown the highlight.
    public struct Baseline: Sendable, Hashable, Codable {
        /// The flows whose units are comparable (those in which the highlight was shown).
        public var flows: [String]
        public var units: Int
        /// Units that used the feature within the window after their start.
        public var used: Int
        public var rate: Double?
        public var interval: ConfidenceInterval?
    }

    /// The figures of one highlight.
    public struct HighlightRow: Sendable, Hashable, Codable {
        public var highlight: String
        /// The feature it points at; `nil` when no event said.
        public var feature: String?
        public var shown: Int
        public var alreadyKnew: Int
        /// shown − already knew: the denominator of the rate.
        public var eligible: Int
        public var discovered: Int
        public var rate: Double?
        /// Wilson score interval of the rate.
        public var interval: ConfidenceInterval?
        /// Seconds from the first showing to the first use, among discovered units.
        public var timeToDiscovery: DurationSummary
        public var dismissed: [ReasonRow]
        public var baseline: Baseline
        /// rate − baseline rate.
        public var uplift: Double?
        /// Newcombe's interval of the uplift.
        public var upliftInterval: ConfidenceInterval?
    }

    public var unit: FunnelOptions.Unit
    public var windowSeconds: Double
    public var level: Double
    public var since: Date?
    public var until: Date?
    /// Units counted (within the time range).
    public var units: Int
    /// By highlight id.
    public var highlights: [HighlightRow]
}

extension DiscoveryReport {
    /// Builds the report from sessions in memory.
    public static func build(sessions: [RecordedSession], options: DiscoveryOptions = DiscoveryOptions())
        -> DiscoveryReport
    {
        var aggregator = DiscoveryAggregator(options: options)
        for session in sessions { aggregator.add(session) }
        return aggregator.report()
    }

    /// Builds the report by streaming sessions out of PostgreSQL; pass `options.reader` (or a
    /// reader whose `closeAfter` covers the window, else late feature use lands in a new unit).
    /// - Throws: `PostgresError`.
    public static func build(
        reader: SessionReader, connection: PostgresConnection, options: DiscoveryOptions = DiscoveryOptions(),
        progress: (Int) -> Void = { _ in }
    ) throws -> DiscoveryReport {
        var aggregator = DiscoveryAggregator(options: options)
        try reader.read(on: connection, progress: progress) { aggregator.add($0) }
        return aggregator.report()
    }

    /// One row per highlight: shown, knew, eligible, discovered, rate and CI, time to discovery,
    /// baseline and uplift with CI.
    public var table: TextTable {
        let rows = highlights.map { row in
            [
                row.highlight, row.feature ?? "", String(row.shown), String(row.alreadyKnew), String(row.eligible),
                String(row.discovered), FunnelReport.percent(row.rate), Self.interval(row.interval),
                FunnelReport.seconds(row.timeToDiscovery.median), String(row.baseline.units),
                FunnelReport.percent(row.baseline.rate), Self.points(row.uplift), Self.interval(row.upliftInterval),
            ]
        }
        let percent = Int((level * 100).rounded())
        return TextTable(
            header: [
                "highlight", "feature", "shown", "already knew", "eligible", "discovered", "rate", "\(percent)% CI",
                "time to discovery p50", "baseline units", "baseline rate", "uplift", "\(percent)% CI",
            ], rows: rows, numericColumns: Set(2..<13))
    }

    /// Units per highlight and first dismissal reason, with their discovery rate.
    public var dismissalTable: TextTable {
        let rows = highlights.flatMap { row in
            row.dismissed.map {
                [
                    row.highlight, $0.reason, String($0.units), String($0.eligible), String($0.discovered),
                    FunnelReport.percent($0.rate),
                ]
            }
        }
        return TextTable(
            header: ["highlight", "dismissed", "units", "eligible", "discovered", "rate"], rows: rows,
            numericColumns: [2, 3, 4, 5])
    }

    /// The report in a format: text and Markdown hold both tables; CSV the highlight table; JSON
    /// everything (stable snake_case keys).
    public func rendered(_ format: ReportFormat) throws -> String {
        let title =
            "Feature discovery per \(unit.rawValue), window \(DurationText.format(windowSeconds)): \(units) \(unit.rawValue)s"
        switch format {
        case .json: return try ReportJSON.encode(self)
        case .csv: return table.csv
        case .markdown:
            return "## \(title)\n\n" + table.markdown + "\n\n### Dismissals\n\n" + dismissalTable.markdown
        case .text:
            guard !highlights.isEmpty else { return title + "\n\nno highlight was shown" }
            return title + "\n\n" + table.text + "\n\n" + dismissalTable.text
        }
    }

    static func interval(_ interval: ConfidenceInterval?) -> String {
        guard let interval else { return "–" }
        return String(format: "%.1f%% – %.1f%%", interval.lower * 100, interval.upper * 100)
    }

    static func points(_ value: Double?) -> String {
        value.map { String(format: "%+.1f pp", $0 * 100) } ?? "–"
    }
}
