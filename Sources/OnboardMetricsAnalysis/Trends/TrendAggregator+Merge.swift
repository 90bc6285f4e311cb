extension TrendAggregator: SessionAggregator {
    public mutating func merge(_ other: TrendAggregator) {
        selection.merge(other.selection)
        counts.mergeValues(other.counts) { mine, theirs in
            mine.started += theirs.started
            mine.completed += theirs.completed
            mine.dropped += theirs.dropped
            mine.inProgress += theirs.inProgress
            mine.eligible.addElements(theirs.eligible)
            mine.viewed.addElements(theirs.viewed)
        }
    }
}
