extension ConformanceAggregator: SessionAggregator {
    public mutating func merge(_ other: ConformanceAggregator) {
        selection.merge(other.selection)
        sessions += other.sessions
        fitnessCounts.mergeValues(other.fitnessCounts) { $0 += $1 }
        let limit = options.examplesPerDeviation
        places.mergeValues(other.places) { mine, theirs in
            mine.occurrences += theirs.occurrences
            mine.sessions += theirs.sessions
            // Both keep their smallest ids; the smallest of the union are among them.
            mine.examples = Array((mine.examples + theirs.examples).sorted().prefix(max(limit, 0)))
        }
    }
}
