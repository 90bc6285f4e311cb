extension CorrelationAggregator: SessionAggregator {
    public mutating func merge(_ other: CorrelationAggregator) {
        selection.merge(other.selection)
        groups.mergeValues(other.groups) { $0.merge($1) }
        // The other aggregate's name numbers, as this one numbers them.
        let renumbered = names.renumbering(other.names)
        users.merge(other.users) { $0 = $0.renumbered(renumbered) }
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
