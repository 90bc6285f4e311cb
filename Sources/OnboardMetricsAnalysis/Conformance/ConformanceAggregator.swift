import Foundation
import OnboardMetricsReader
import OnboardMetricsSDK

/// Replays sessions of one flow and tallies a ``ConformanceReport``.
///
/// Memory does not grow with the sessions: fitness is kept as a count per distinct
/// (judged events, deviations) pair — few distinct pairs occur — from which mean and quantiles
/// are exact; deviations are counted per (kind, flow, step) with a few example ids each.
public struct ConformanceAggregator: Sendable {
    struct FitnessKey: Hashable {
        var judged: Int
        var deviations: Int
        var value: Double { ConformanceReport.fitness(judgedEvents: judged, deviations: deviations) }
    }

    struct Place: Hashable {
        var kind: Deviation.Kind
        var flowID: String?
        var stepID: String?
    }

    struct PlaceCounts {
        var occurrences = 0
        var sessions = 0
        var examples: [String] = []
    }

    let flow: FlowDefinition
    let catalog: FlowCatalog?
    let options: ConformanceOptions
    var selection: SessionSelection
    var fitnessCounts: [FitnessKey: Int] = [:]
    var places: [Place: PlaceCounts] = [:]
    var sessions = 0

    public init(flow: FlowDefinition, catalog: FlowCatalog? = nil, options: ConformanceOptions = ConformanceOptions()) {
        self.flow = flow
        self.catalog = catalog
        self.options = options
        self.selection = SessionSelection(flowID: flow.id, since: options.since, until: options.until)
    }

    public mutating func add(_ session: RecordedSession) {
        guard selection.accepts(session) else { return }
        let definition = session.flowVersion.flatMap { catalog?.flow(flow.id, version: $0) } ?? flow
        var navigator = FlowNavigator(flow: definition, catalog: catalog, context: session.context)
        var judged = 0
        var found: [Deviation] = []
        for event in Self.recordingOrder(session.events) {
            switch event.kind {
            case .sessionStarted, .featureUsed, .experimentExposure, .custom: break
            default: judged += 1
            }
            found += navigator.observe(event.draft)
        }
        sessions += 1
        fitnessCounts[FitnessKey(judged: judged, deviations: found.count), default: 0] += 1
        guard !found.isEmpty else { return }
        let id = session.sessionID.uuidString.lowercased()
        var seen: Set<Place> = []
        for deviation in found {
            let place = Place(kind: deviation.kind, flowID: deviation.flowID, stepID: deviation.stepID)
            var counts = places[place] ?? PlaceCounts()
            counts.occurrences += 1
            if seen.insert(place).inserted {
                counts.sessions += 1
                Self.keepSmallest(id, in: &counts.examples, limit: options.examplesPerDeviation)
            }
            places[place] = counts
        }
    }

    /// The events in the order the app recorded them (`seq`), which is what the navigator judges.
    /// Sessions come ordered by skew-corrected time, and the correction adds each event's own
    /// network delay, so events emitted together (a completion and the next view) can swap there.
    private static func recordingOrder(_ events: [RecordedEvent]) -> [RecordedEvent] {
        if zip(events, events.dropFirst()).allSatisfy({ $0.seq <= $1.seq }) { return events }
        return events.sorted { ($0.seq, $0.time) < ($1.seq, $1.time) }
    }

    /// Keeps the `limit` smallest ids, so examples do not depend on the order sessions arrive in.
    private static func keepSmallest(_ id: String, in examples: inout [String], limit: Int) {
        guard limit > 0 else { return }
        if examples.count < limit {
            examples.append(id)
            examples.sort()
        } else if let last = examples.last, id < last {
            examples[examples.count - 1] = id
            examples.sort()
        }
    }

    public func report() -> ConformanceReport {
        // Sorted by value, then by key: equal values (1 of 3 and 2 of 6) are summed in one order, so
        // the mean is the same to the last bit however the sessions were read (one server or shards).
        let distribution = fitnessCounts.sorted { ($0.key.value, $0.key.judged) < ($1.key.value, $1.key.judged) }
            .map { (value: $0.key.value, count: $0.value) }
        let perfect = fitnessCounts.filter { $0.key.deviations == 0 }.values.reduce(0, +)
        let total = distribution.reduce(0) { $0 + $1.count }
        let sum = distribution.reduce(0.0) { $0 + $1.value * Double($1.count) }
        var buckets = (0..<10).map {
            ConformanceReport.Bucket(lower: Double($0) / 10, upper: Double($0 + 1) / 10, sessions: 0)
        }
        for entry in distribution {
            // Fitness 1 belongs to the last bucket; the epsilon keeps 0.3 (= 3/10 in binary, just
            // below) in the bucket people expect.
            let index = min(9, Int((entry.value * 10 + 1e-9).rounded(.down)))
            buckets[index].sessions += entry.count
        }
        let rows = places.map { place, counts in
            ConformanceReport.DeviationRow(
                kind: place.kind, flowID: place.flowID, stepID: place.stepID, occurrences: counts.occurrences,
                sessions: counts.sessions, exampleSessions: counts.examples)
        }.sorted {
            if $0.occurrences != $1.occurrences { return $0.occurrences > $1.occurrences }
            return ($0.kind.rawValue, $0.flowID ?? "", $0.stepID ?? "") < (
                $1.kind.rawValue, $1.flowID ?? "", $1.stepID ?? ""
            )
        }
        return ConformanceReport(
            flowID: flow.id, flowVersion: flow.version, since: options.since, until: options.until, sessions: total,
            perfectlyFitting: perfect, perfectlyFittingShare: total == 0 ? nil : Double(perfect) / Double(total),
            fitness: ConformanceReport.FitnessSummary(
                mean: total == 0 ? nil : sum / Double(total), p10: Self.quantile(distribution, total, 0.1),
                median: Self.quantile(distribution, total, 0.5), p90: Self.quantile(distribution, total, 0.9)),
            histogram: buckets, deviationCount: rows.reduce(0) { $0 + $1.occurrences }, deviations: rows,
            otherFlowSessions: selection.otherFlowSessions)
    }

    /// The type-7 quantile of a sample given as sorted (value, count) pairs: interpolates between
    /// the order statistics at ranks ⌊q(n−1)⌋ and the next, as ``Quantiles`` does on raw values.
    private static func quantile(_ distribution: [(value: Double, count: Int)], _ total: Int, _ q: Double)
        -> Double?
    {
        guard total > 0 else { return nil }
        let position = q * Double(total - 1)
        let lowerRank = Int(position.rounded(.down))
        let upperRank = min(lowerRank + 1, total - 1)
        func value(atRank rank: Int) -> Double {
            var seen = 0
            for entry in distribution {
                seen += entry.count
                if rank < seen { return entry.value }
            }
            return distribution.last?.value ?? 1
        }
        let lower = value(atRank: lowerRank)
        return lower + (value(atRank: upperRank) - lower) * (position - Double(lowerRank))
    }
}
