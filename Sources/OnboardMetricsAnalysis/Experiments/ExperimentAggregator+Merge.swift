extension ExperimentAggregator: SessionAggregator {
    public mutating func merge(_ other: ExperimentAggregator) {
        counts.mergeValues(other.counts) { mine, theirs in
            mine.units += theirs.units
            mine.eligible.addElements(theirs.eligible)
            mine.conversions.addElements(theirs.conversions)
        }
        users.merge(other.users)
    }
}

extension ExperimentAggregator.UnitRecord {
    /// Merges another record of the same user: the earliest exposure's variant (ties: the smaller
    /// name), mixed when any two differ, eligible and converted when any session was.
    mutating func merge(_ other: Self) {
        if other.variant != variant || other.mixed { mixed = true }
        if (other.exposedAt, other.variant) < (exposedAt, variant) {
            variant = other.variant
            exposedAt = other.exposedAt
        }
        for index in outcomes.indices { outcomes[index] = outcomes[index] || other.outcomes[index] }
    }
}
