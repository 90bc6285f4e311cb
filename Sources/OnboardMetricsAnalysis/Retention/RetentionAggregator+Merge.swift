import Foundation
import OnboardMetricsReader
import OnboardMetricsStatistics

extension RetentionAggregator: SessionAggregator {
    public mutating func merge(_ other: RetentionAggregator) {
        let renumbered = variants.renumbering(other.variants)
        people.merge(other.people) { person in
            for index in person.onboardings.indices {
                person.onboardings[index].variant = person.onboardings[index].variant.map { renumbered[Int($0)] }
            }
            person.exposure = person.exposure.map { ($0.time, $0.variants.map { renumbered[Int($0)] }) }
        }
        newest = max(newest, other.newest)
        selection.merge(other.selection)
    }

    /// Counts every unit into its group and days.
    public mutating func report() throws -> RetentionReport {
        let end: Int64? = options.until.map(RecordedEvent.microseconds) ?? (newest == .min ? nil : newest)
        var counts: [String: (units: Int, eligible: [Int], retained: [Int])] = [:]
        let zeros = Array(repeating: 0, count: options.days.count)
        var unitCount = 0
        // Counts do not depend on the order people come in.
        people.forEach { _, person in
            guard !person.onboardings.isEmpty else { return }
            for (start, group) in units(of: person) {
                unitCount += 1
                var row = counts[group] ?? (0, zeros, zeros)
                row.units += 1
                for (index, day) in options.days.enumerated() {
                    let from = start + Int64(day) * Self.dayLength
                    guard let end, end - start >= Int64(day + 1) * Self.dayLength else { continue }
                    row.eligible[index] += 1
                    if person.hasEvent(from: from, before: from + Self.dayLength) { row.retained[index] += 1 }
                }
                counts[group] = row
            }
        }
        let names = ordered(Array(counts.keys))
        let groups = names.map { name in
            let row = counts[name] ?? (0, zeros, zeros)
            return RetentionReport.Group(
                group: name, units: row.units,
                days: options.days.enumerated().map { index, day in
                    let eligible = row.eligible[index]
                    let retained = row.retained[index]
                    return RetentionReport.Day(
                        day: day, eligible: eligible, retained: retained,
                        rate: eligible > 0 ? Double(retained) / Double(eligible) : nil,
                        interval: ConfidenceInterval.wilson(successes: retained, trials: eligible, level: options.level)
                    )
                })
        }
        var differences: [RetentionReport.Difference] = []
        if let reference = groups.first(where: { $0.group == referenceGroup(names) }) {
            for group in groups where group.group != reference.group {
                for (mine, theirs) in zip(group.days, reference.days) {
                    let measurable = mine.eligible > 0 && theirs.eligible > 0
                    differences.append(
                        RetentionReport.Difference(
                            group: group.group, reference: reference.group, day: mine.day,
                            difference: measurable ? (mine.rate ?? 0) - (theirs.rate ?? 0) : nil,
                            interval: measurable
                                ? ConfidenceInterval.newcombeDifference(
                                    successes1: mine.retained, trials1: mine.eligible, successes2: theirs.retained,
                                    trials2: theirs.eligible, level: options.level) : nil))
                }
            }
        }
        return RetentionReport(
            flowID: flow.id, unit: options.unit, by: options.grouping.text, days: options.days, since: options.since,
            until: options.until, dataEnd: end.map { Date(timeIntervalSince1970: Double($0) / 1_000_000) },
            level: options.level, units: unitCount,
            otherFlowSessions: selection.otherFlowSessions, groups: groups, differences: differences)
    }

    /// The units a person makes: one (their first onboarding) per user, one per onboarding session
    /// per session; each with its start and group.
    private func units(of person: Person) -> [(start: Int64, group: String)] {
        let sorted = person.onboardings.sorted { ($0.start, $0.flowVersion ?? -1) < ($1.start, $1.flowVersion ?? -1) }
        switch options.unit {
        case .session:
            return sorted.map { ($0.start, group(of: $0, person: person, merged: $0.outcome.state)) }
        case .user:
            guard let first = sorted.first else { return [] }
            var merged = first.outcome.state
            for other in sorted.dropFirst() { merged.merge(other.outcome.state) }
            return [(first.start, group(of: first, person: person, merged: merged))]
        }
    }

    private func group(of onboarding: Onboarding, person: Person, merged: FunnelUnitState) -> String {
        switch options.grouping {
        case .outcome:
            switch merged.status {
            case .completed: return "completed"
            case .dropped: return "dropped"
            case .inProgress: return "in_progress"
            }
        case .flowVersion:
            return onboarding.flowVersion.map(String.init) ?? "(none)"
        case .variant:
            let variant =
                options.unit == .session
                ? onboarding.variant.map { variants[$0] } : person.exposure?.variants.map { variants[$0] }.min()
            return variant ?? "(not exposed)"
        }
    }

    /// Groups in reading order: outcomes as a funnel reads, versions by number, variants by name.
    private func ordered(_ names: [String]) -> [String] {
        switch options.grouping {
        case .outcome:
            let order = ["completed", "dropped", "in_progress"]
            return names.sorted { (order.firstIndex(of: $0) ?? 3, $0) < (order.firstIndex(of: $1) ?? 3, $1) }
        case .flowVersion:
            return names.sorted { (Int($0) ?? .max, $0) < (Int($1) ?? .max, $1) }
        case .variant:
            return names.sorted()
        }
    }

    /// What the other groups are compared with (see ``RetentionReport``).
    private func referenceGroup(_ names: [String]) -> String? {
        switch options.grouping {
        case .outcome: return names.contains("dropped") ? "dropped" : names.first
        case .flowVersion: return names.first
        case .variant:
            return names.contains("control") ? "control" : names.first { $0 != "(not exposed)" } ?? names.first
        }
    }
}

extension RetentionAggregator.Person {
    /// Whether some event time lies in [from, before); `times` sorted.
    func hasEvent(from: Int64, before: Int64) -> Bool {
        var low = 0
        var high = times.count
        while low < high {
            let middle = (low + high) / 2
            if times[middle] < from { low = middle + 1 } else { high = middle }
        }
        return low < times.count && times[low] < before
    }
}
