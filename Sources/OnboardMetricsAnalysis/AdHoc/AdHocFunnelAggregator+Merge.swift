extension AdHocFunnelAggregator: SessionAggregator {
    public mutating func merge(_ other: AdHocFunnelAggregator) {
        units += other.units
        byDepth.addElements(other.byDepth)
        toConvert.appendSamples(other.toConvert)
        fromStart.appendSamples(other.fromStart)
        // A user's matched events from every shard; the reach sorts them by time at the end.
        users.mergeValues(other.users) { $0 += $1 }
    }
}
