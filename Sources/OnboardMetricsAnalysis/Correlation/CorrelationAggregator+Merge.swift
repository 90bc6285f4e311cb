extension CorrelationAggregator: SessionAggregator {
    public mutating func merge(_ other: CorrelationAggregator) {
        selection.merge(other.selection)
        groups.mergeValues(other.groups) { $0.merge($1) }
        users.mergeValues(other.users) { $0.merge($1) }
    }
}

extension CorrelationAggregator.GroupCounts {
    mutating func merge(_ other: Self) {
        successes += other.successes
        failures += other.failures
        inProgress += other.inProgress
        notEntered += other.notEntered
        candidates.mergeValues(other.candidates) { mine, theirs in
            mine.successes += theirs.successes
            mine.failures += theirs.failures
        }
    }
}
