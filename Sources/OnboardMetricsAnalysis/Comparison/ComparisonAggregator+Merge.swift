extension ComparisonAggregator: SessionAggregator {
    public mutating func merge(_ other: ComparisonAggregator) {
        selection.merge(other.selection)
        a.merge(other.a)
        b.merge(other.b)
    }
}

extension ComparisonAggregator.Counts {
    mutating func merge(_ other: Self) {
        started += other.started
        inProgress += other.inProgress
        completed += other.completed
        eligible.addElements(other.eligible)
        entered.addElements(other.entered)
        converted.addElements(other.converted)
        viewed.addElements(other.viewed)
        skipped.addElements(other.skipped)
        onStep.appendSamples(other.onStep)
    }
}
