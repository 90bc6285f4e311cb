import Foundation
import OnboardMetricsReader
import OnboardMetricsStatistics

/// Collects, per variant, exposed units and per metric the eligible and converted ones, one
/// session at a time. Per session nothing per unit is kept; per user a small record per user is,
/// packed (``PackedUnitStore``).
public struct ExperimentAggregator: Sendable {
    struct Counts {
        var units = 0
        var eligible: [Int]
        var conversions: [Int]
    }

    /// One unit's exposure and outcome per metric.
    struct UnitRecord: Sendable {
        var variant: String
        var exposedAt: Int64
        var mixed = false
        /// Per metric whether the unit was eligible, then per metric whether it converted: one
        /// array rather than two, as per user a record is held for every person to the end.
        var outcomes: [Bool]

        init(variant: String, exposedAt: Int64, eligible: [Bool], converted: [Bool]) {
            self.variant = variant
            self.exposedAt = exposedAt
            outcomes = eligible + converted
        }

        func isEligible(_ metric: Int) -> Bool { outcomes[metric] }
        func converted(_ metric: Int) -> Bool { outcomes[outcomes.count / 2 + metric] }
    }

    let options: ExperimentOptions
    let correction: MultipleComparisonCorrection
    let windowMicroseconds: Int64
    var counts: [String: Counts] = [:]
    var users: PackedUnitStore<UnitRecord>
    private var scratch: UnitRecord

    /// - Parameter correction: how the p-values of all variant × metric comparisons are adjusted
    ///   together; Holm by default.
    public init(options: ExperimentOptions, correction: MultipleComparisonCorrection = .holm) {
        self.options = options
        self.correction = correction
        windowMicroseconds = DurationText.microseconds(options.window)
        users = PackedUnitStore(stepCount: options.metrics.count)
        scratch = UnitRecord(stepCount: options.metrics.count)
    }

    public mutating func add(_ session: RecordedSession) {
        guard let record = evaluate(session) else { return }
        switch options.unit {
        case .session: count(record)
        case .user:
            users.merge(record, user: session.userID, scratch: &scratch)
        }
    }

    /// Counts of the variants, and the number of users left out for seeing several variants.
    /// The report of the units counted: rates, differences and tests per variant and metric.
    public mutating func report() -> ExperimentReport {
        let (counts, mixed) = finish()
        return ExperimentReport.make(counts: counts, mixed: mixed, options: options, correction: correction)
    }

    mutating func finish() -> (counts: [String: Counts], mixed: Int) {
        var mixed = 0
        users.takeAll().forEach { _, record in
            if record.mixed { mixed += 1 } else { count(record) }
        }
        return (counts, mixed)
    }

    private mutating func count(_ record: UnitRecord) {
        let empty = Array(repeating: 0, count: options.metrics.count)
        var row = counts[record.variant] ?? Counts(eligible: empty, conversions: empty)
        row.units += 1
        for index in options.metrics.indices where record.isEligible(index) {
            row.eligible[index] += 1
            if record.converted(index) { row.conversions[index] += 1 }
        }
        counts[record.variant] = row
    }

    /// The session's exposure (its first one to the experiment) and outcome per metric; `nil` when
    /// it was not exposed, is outside the time range, or belongs to another flow.
    func evaluate(_ session: RecordedSession) -> UnitRecord? {
        if let flow = options.flow, session.flowID != flow.id { return nil }
        guard
            let exposure = session.events.first(where: { $0.kind == .experimentExposure && $0.name == options.key }),
            let variant = exposure.properties["variant"]?.stringValue
        else { return nil }
        let start = exposure.time
        if let since = options.since, start < RecordedEvent.microseconds(since) { return nil }
        if let until = options.until, start >= RecordedEvent.microseconds(until) { return nil }
        let end = start + windowMicroseconds
        let inWindow = { (event: RecordedEvent) in event.time >= start && event.time <= end }
        var eligible: [Bool] = []
        var converted: [Bool] = []
        for metric in options.metrics {
            switch metric {
            case .completion:
                eligible.append(true)
                converted.append(
                    session.events.contains {
                        $0.kind == .flowCompleted && inWindow($0)
                            && (options.flow == nil || $0.flowID == nil || $0.flowID == options.flow?.id)
                    })
            case .step(let stepID):
                eligible.append(options.flow?.step(stepID)?.applies(to: session.context) ?? true)
                converted.append(
                    session.events.contains { $0.kind == .stepCompleted && $0.stepID == stepID && inWindow($0) })
            case .reached(let stepID):
                eligible.append(true)
                converted.append(
                    session.events.contains { $0.kind == .stepViewed && $0.stepID == stepID && inWindow($0) })
            case .finished(let flowID):
                eligible.append(true)
                converted.append(
                    session.events.contains {
                        $0.kind == .flowCompleted && ($0.flowID == nil || $0.flowID == flowID) && inWindow($0)
                    })
            case .funnel:
                // Expanded before the read (ExperimentOptions.expand(funnel:)); unexpanded, nothing converts.
                eligible.append(true)
                converted.append(false)
            case .discovery(let feature):
                let used = { (event: RecordedEvent) in event.kind == .featureUsed && event.name == feature }
                eligible.append(!session.events.contains { used($0) && $0.time < start })
                converted.append(session.events.contains { used($0) && inWindow($0) })
            }
        }
        return UnitRecord(variant: variant, exposedAt: start, eligible: eligible, converted: converted)
    }
}
