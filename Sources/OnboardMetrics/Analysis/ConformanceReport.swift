import Foundation

/// How well recorded sessions follow their flow: each session of the flow is replayed through a
/// ``FlowNavigator`` (`observe(_:)`), which names every event that is not a legal move. Events are
/// replayed in the order the app recorded them (`seq`), not by corrected time: the correction
/// adds per-event network delay and can swap events the app emitted together.
///
/// **Fitness** of a session, in the spirit of process-mining token replay (each deviation is a
/// token that had to be created or left over to let the recording through):
///
///     fitness = 1 − d / (e + d)
///
/// where `e` is the number of events the navigator judges (step and flow events and highlights —
/// every event except `session_started`, `feature_used`, `experiment_exposure` and `custom`) and
/// `d` the number of deviations found. It is 1 for a session without deviations (also one with no
/// judged events), tends to 0 as deviations dominate, and stays in [0, 1] when one event yields
/// several deviations.
///
/// Build it with ``build(flow:catalog:sessions:options:)`` or
/// ``build(flow:catalog:reader:connection:options:progress:)``; render with ``rendered(_:)``.
public struct ConformanceReport: Sendable, Hashable, Codable {
    /// Summary statistics of per-session fitness.
    public struct FitnessSummary: Sendable, Hashable, Codable {
        /// Mean fitness; `nil` without sessions.
        public var mean: Double?
        /// 10th percentile (type-7 quantile, as ``Quantiles``).
        public var p10: Double?
        /// Median.
        public var median: Double?
        /// 90th percentile.
        public var p90: Double?
    }

    /// Sessions whose fitness lies in `[lower, upper)` (the last bucket includes 1).
    public struct Bucket: Sendable, Hashable, Codable {
        public var lower: Double
        public var upper: Double
        public var sessions: Int
    }

    /// One kind of deviation at one place (flow and step, or highlight id).
    public struct DeviationRow: Sendable, Hashable, Codable {
        public var kind: Deviation.Kind
        public var flowID: String?
        /// The step (or, for `unknownHighlight`, the highlight id).
        public var stepID: String?
        /// How often it occurred.
        public var occurrences: Int
        /// Sessions in which it occurred at least once.
        public var sessions: Int
        /// A few of those sessions (the smallest ids, lowercase), to look up.
        public var exampleSessions: [String]
    }

    public var flowID: String
    public var flowVersion: Int
    public var since: Date?
    public var until: Date?
    /// Sessions of the flow replayed.
    public var sessions: Int
    /// Sessions without any deviation.
    public var perfectlyFitting: Int
    /// `perfectlyFitting / sessions`; `nil` without sessions.
    public var perfectlyFittingShare: Double?
    public var fitness: FitnessSummary
    /// Ten buckets of width 0.1.
    public var histogram: [Bucket]
    /// All deviations found.
    public var deviationCount: Int
    /// By occurrences, most frequent first (ties by kind, flow, step).
    public var deviations: [DeviationRow]
    /// Sessions read that belong to other flows (not replayed).
    public var otherFlowSessions: Int
}

extension ConformanceReport {
    /// Builds the report from sessions in memory.
    /// - Parameters:
    ///   - flow: the flow checked; sessions of other flows are counted apart and skipped.
    ///   - catalog: sub-flows for hand-offs, and older versions of `flow` (a session recorded with
    ///     another version is replayed against that version when the catalog has it).
    ///   - sessions: recorded sessions.
    ///   - options: time range and examples.
    public static func build(
        flow: FlowDefinition, catalog: FlowCatalog? = nil, sessions: [RecordedSession],
        options: ConformanceOptions = ConformanceOptions()
    ) -> ConformanceReport {
        var aggregator = ConformanceAggregator(flow: flow, catalog: catalog, options: options)
        for session in sessions { aggregator.add(session) }
        return aggregator.report()
    }

    /// Builds the report by streaming sessions out of PostgreSQL.
    /// - Throws: `PostgresError`.
    public static func build(
        flow: FlowDefinition, catalog: FlowCatalog? = nil, reader: SessionReader, connection: PostgresConnection,
        options: ConformanceOptions = ConformanceOptions(), progress: (Int) -> Void = { _ in }
    ) throws -> ConformanceReport {
        var aggregator = ConformanceAggregator(flow: flow, catalog: catalog, options: options)
        try reader.read(on: connection, progress: progress) { aggregator.add($0) }
        return aggregator.report()
    }

    /// Fitness of one session from its judged events and deviations (see the type's documentation).
    public static func fitness(judgedEvents: Int, deviations: Int) -> Double {
        let total = judgedEvents + deviations
        return total == 0 ? 1 : 1 - Double(deviations) / Double(total)
    }

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
                FunnelReport.percent(sessions == 0 ? nil : Double(bucket.sessions) / Double(sessions)),
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
                    String(sessions), String(perfectlyFitting), FunnelReport.percent(perfectlyFittingShare),
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
