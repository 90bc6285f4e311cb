import Foundation
import OnboardMetricsReader
import OnboardMetricsSDK
import OnboardMetricsStatistics

/// Tallies ``DiscoveryTrace``s into a ``DiscoveryReport``.
///
/// The baseline is kept without remembering units: per flow, the units and, per feature, the
/// units that used it within the window after their start ("organic hits"); per highlight and
/// flow, the same two counts among units shown it. Baseline = flow totals − shown, summed over
/// the flows the highlight was shown in — exact, and independent of the order units arrive in
/// (a highlight may be first shown after many of its baseline units were read).
public struct DiscoveryAggregator: Sendable {
    struct ReasonCounts {
        var units = 0
        var eligible = 0
        var discovered = 0
    }

    struct FlowShown {
        var units = 0
        /// Per feature, the units shown the highlight that used it within the window after their
        /// start: the baseline takes them from the flow's for the feature the row reports, which
        /// need not be the one each showing named.
        var organicHits: [String: Int] = [:]
    }

    struct HighlightCounts {
        /// The feature the highlight's showings named, the smallest name where they named
        /// several: counted as units come, so it must not depend on their order.
        var feature: String?
        var shown = 0
        var alreadyKnew = 0
        var discovered = 0
        var secondsToDiscovery: [Double] = []
        var reasons: [String: ReasonCounts] = [:]
        var flows: [String: FlowShown] = [:]
    }

    /// One arm of the holdout comparison: units exposed, and per feature those that used it
    /// before their exposure and those that first used it within the window after.
    struct ArmCounts {
        var units = 0
        var knew: [String: Int] = [:]
        var used: [String: Int] = [:]
        var variants: Set<String> = []
    }

    /// The flow key of units whose session named no flow.
    private static let noFlow = "(none)"
    private static let notDismissed = "(not dismissed)"

    let options: DiscoveryOptions
    let window: Int64
    let since: Int64?
    let until: Int64?
    /// Per user, every person's merged trace to the end, packed.
    var users = PackedUnitStore<DiscoveryTrace>(stepCount: 0)
    /// Reused to unpack a person the store merges.
    private var scratch = DiscoveryTrace(stepCount: 0)
    var units = 0
    var unitsByFlow: [String: Int] = [:]
    var organicHits: [String: [String: Int]] = [:]
    var highlights: [String: HighlightCounts] = [:]
    var treated = ArmCounts()
    var held = ArmCounts()
    /// Treated units shown each highlight.
    var shownTreated: [String: Int] = [:]
    /// Per highlight, the units whose showing named no feature, packed one after another
    /// (``DiscoveryTrace``'s packing): counted at the end, against the feature the others named
    /// (``HighlightCounts/feature``), which is only known then. Counted as they came, the answer
    /// depended on the order units were read and merged in. Few units are here when the SDK
    /// records the highlights (it always names the feature).
    var unnamed: [String: [UInt8]] = [:]

    public init(options: DiscoveryOptions = DiscoveryOptions()) {
        self.options = options
        self.window = DurationText.microseconds(options.window)
        self.since = options.since.map(RecordedEvent.microseconds)
        self.until = options.until.map(RecordedEvent.microseconds)
    }

    public mutating func add(_ session: RecordedSession) {
        let trace = DiscoveryTrace(session, holdout: options.holdout)
        switch options.unit {
        case .session: count(trace)
        case .user: users.merge(trace, user: session.userID, scratch: &scratch)
        }
    }

    private mutating func count(_ trace: DiscoveryTrace) {
        if let since, trace.start < since { return }
        if let until, trace.start >= until { return }
        units += 1
        countHoldout(trace)
        let flow = trace.flowID ?? Self.noFlow
        unitsByFlow[flow, default: 0] += 1
        let hits = organicFeatures(of: trace)
        for feature in hits { organicHits[flow, default: [:]][feature, default: 0] += 1 }
        for (id, showing) in trace.shown {
            if let wanted = options.highlight, wanted != id { continue }
            guard let feature = showing.feature else {
                trace.pack(into: &unnamed[id, default: []], breakdownNumber: 0)
                continue
            }
            count(showing, of: id, feature: feature, in: trace, hits: hits)
        }
    }

    /// The features `trace`'s unit used within the window after its start.
    private func organicFeatures(of trace: DiscoveryTrace) -> Set<String> {
        Set(trace.uses.keys.filter { trace.firstUse(of: $0, from: trace.start, window: window) != nil })
    }

    /// Counts one unit's showing of highlight `id`, against `feature`.
    private mutating func count(
        _ showing: DiscoveryTrace.Showing, of id: String, feature: String, in trace: DiscoveryTrace, hits: Set<String>
    ) {
        let flow = trace.flowID ?? Self.noFlow
        var counts = highlights.removeValue(forKey: id) ?? HighlightCounts()
        if showing.feature != nil { counts.feature = Self.smaller(counts.feature, showing.feature) }
        counts.shown += 1
        counts.flows[flow, default: FlowShown()].units += 1
        for used in hits { counts.flows[flow, default: FlowShown()].organicHits[used, default: 0] += 1 }
        var reason = counts.reasons[showing.reason ?? Self.notDismissed] ?? ReasonCounts()
        reason.units += 1
        if trace.usedBefore(feature, showing.time) {
            counts.alreadyKnew += 1
        } else {
            reason.eligible += 1
            if let used = trace.firstUse(of: feature, from: showing.time, window: window) {
                counts.discovered += 1
                reason.discovered += 1
                counts.secondsToDiscovery.append(Double(used - showing.time) / 1_000_000)
            }
        }
        counts.reasons[showing.reason ?? Self.notDismissed] = reason
        highlights[id] = counts
    }

    private mutating func countHoldout(_ trace: DiscoveryTrace) {
        guard let exposure = trace.exposure else { return }
        let isHoldout = exposure.variant == options.holdoutVariant
        var arm = isHoldout ? held : treated
        arm.units += 1
        arm.variants.insert(exposure.variant)
        for feature in trace.uses.keys {
            if trace.usedBefore(feature, exposure.time) {
                arm.knew[feature, default: 0] += 1
            } else if trace.firstUse(of: feature, from: exposure.time, window: window) != nil {
                arm.used[feature, default: 0] += 1
            }
        }
        if isHoldout {
            held = arm
        } else {
            treated = arm
            for id in trace.shown.keys where options.highlight == nil || options.highlight == id {
                shownTreated[id, default: 0] += 1
            }
        }
    }

    /// The smaller of two names, either missing. By their UTF-8 bytes: `<` holds canonically
    /// equivalent names equal ("é" as one scalar or two), and would keep whichever came first.
    static func smaller(_ one: String?, _ other: String?) -> String? {
        guard let one else { return other }
        guard let other else { return one }
        return other.utf8.lexicographicallyPrecedes(one.utf8) ? other : one
    }

    public mutating func report() -> DiscoveryReport {
        if options.unit == .user {
            users.takeAll().forEach { count($1) }
        }
        // The showings that named no feature, against the one the others named (none: "").
        let waiting = unnamed
        unnamed = [:]
        var trace = DiscoveryTrace(stepCount: 0)
        for (id, packed) in waiting {
            let feature = highlights[id]?.feature ?? ""
            packed.withUnsafeBytes { bytes in
                var reader = PackedBytes.Reader(bytes: bytes, offset: 0)
                while reader.offset < bytes.count {
                    trace.unpack(from: &reader) { _ in "" }
                    guard let showing = trace.shown[id] else { continue }
                    count(showing, of: id, feature: feature, in: trace, hits: organicFeatures(of: trace))
                }
            }
        }
        let level = options.level
        let rows = highlights.keys.sorted().compactMap { id -> DiscoveryReport.HighlightRow? in
            guard let counts = highlights[id] else { return nil }
            let eligible = counts.shown - counts.alreadyKnew
            let flows = counts.flows.keys.sorted()
            var baselineUnits = 0
            var baselineUsed = 0
            for flow in flows {
                let shown = counts.flows[flow] ?? FlowShown()
                baselineUnits += (unitsByFlow[flow] ?? 0) - shown.units
                let feature = counts.feature ?? ""
                baselineUsed += (organicHits[flow]?[feature] ?? 0) - (shown.organicHits[feature] ?? 0)
            }
            let rate = Self.ratio(counts.discovered, eligible)
            let baselineRate = Self.ratio(baselineUsed, baselineUnits)
            let baseline = DiscoveryReport.Baseline(
                flows: flows, units: baselineUnits, used: baselineUsed, rate: baselineRate,
                interval: .wilson(successes: baselineUsed, trials: baselineUnits, level: level))
            return DiscoveryReport.HighlightRow(
                highlight: id, feature: counts.feature, shown: counts.shown, alreadyKnew: counts.alreadyKnew,
                eligible: eligible, discovered: counts.discovered, rate: rate,
                interval: .wilson(successes: counts.discovered, trials: eligible, level: level),
                timeToDiscovery: DurationSummary(counts.secondsToDiscovery), dismissed: Self.reasonRows(counts.reasons),
                baseline: baseline, uplift: rate.flatMap { rate in baselineRate.map { rate - $0 } },
                upliftInterval: .newcombeDifference(
                    successes1: counts.discovered, trials1: eligible, successes2: baselineUsed,
                    trials2: baselineUnits, level: level))
        }
        return DiscoveryReport(
            unit: options.unit, windowSeconds: options.window, level: level, since: options.since,
            until: options.until, units: units, highlights: rows, holdout: holdoutReport(rows))
    }

    private func holdoutReport(_ rows: [DiscoveryReport.HighlightRow]) -> DiscoveryHoldout? {
        guard let experiment = options.holdout else { return nil }
        let level = options.level
        func arm(_ counts: ArmCounts, _ feature: String) -> DiscoveryHoldout.Arm {
            let knew = counts.knew[feature] ?? 0
            let discovered = counts.used[feature] ?? 0
            let eligible = counts.units - knew
            return DiscoveryHoldout.Arm(
                units: counts.units, alreadyKnew: knew, eligible: eligible, discovered: discovered,
                rate: Self.ratio(discovered, eligible),
                interval: .wilson(successes: discovered, trials: eligible, level: level))
        }
        let comparisons = rows.map { row in
            let feature = row.feature ?? ""
            let mine = arm(treated, feature)
            let theirs = arm(held, feature)
            return DiscoveryHoldout.Row(
                highlight: row.highlight, feature: row.feature, treated: mine, holdout: theirs,
                shownAmongTreated: Self.ratio(shownTreated[row.highlight] ?? 0, treated.units),
                difference: mine.rate.flatMap { rate in theirs.rate.map { rate - $0 } },
                interval: .newcombeDifference(
                    successes1: mine.discovered, trials1: mine.eligible, successes2: theirs.discovered,
                    trials2: theirs.eligible, level: level),
                pValue: TwoProportionTest(
                    successes1: mine.discovered, trials1: mine.eligible, successes2: theirs.discovered,
                    trials2: theirs.eligible)?.pValue)
        }
        return DiscoveryHoldout(
            experiment: experiment, holdoutVariant: options.holdoutVariant,
            treatedVariants: treated.variants.sorted(), rows: comparisons)
    }

    /// TipKit's reasons always (zero when unseen, so reports line up), then other recorded
    /// reasons, then the units never dismissed.
    private static func reasonRows(_ reasons: [String: ReasonCounts]) -> [DiscoveryReport.ReasonRow] {
        let known = DismissReason.allCases.map(\.rawValue)
        let others = reasons.keys.filter { !known.contains($0) && $0 != notDismissed }.sorted()
        return (known + others + [notDismissed]).map { reason in
            let counts = reasons[reason] ?? ReasonCounts()
            return DiscoveryReport.ReasonRow(
                reason: reason, units: counts.units, eligible: counts.eligible, discovered: counts.discovered,
                rate: ratio(counts.discovered, counts.eligible))
        }
    }

    private static func ratio(_ numerator: Int, _ denominator: Int) -> Double? {
        denominator == 0 ? nil : Double(numerator) / Double(denominator)
    }
}
