extension FunnelAggregator: SessionAggregator {
    public mutating func merge(_ other: FunnelAggregator) {
        selection.merge(other.selection)
        groups.mergeValues(other.groups) { $0.merge($1) }
        users.merge(other.users)
    }
}

extension FunnelAggregator.GroupCounts {
    mutating func merge(_ other: Self) {
        started += other.started
        completed += other.completed
        dropped += other.dropped
        inProgress += other.inProgress
        droppedBeforeFirstStep += other.droppedBeforeFirstStep
        eligible.addElements(other.eligible)
        viewed.addElements(other.viewed)
        completedStep.addElements(other.completedStep)
        skipped.addElements(other.skipped)
        droppedHere.addElements(other.droppedHere)
        inProgressHere.addElements(other.inProgressHere)
        previousReached.addElements(other.previousReached)
        viewedAfterPrevious.addElements(other.viewedAfterPrevious)
        onStep.appendSamples(other.onStep)
        fromStart.appendSamples(other.fromStart)
    }
}
