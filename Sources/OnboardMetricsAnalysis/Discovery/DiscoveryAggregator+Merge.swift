extension DiscoveryAggregator: SessionAggregator {
    public mutating func merge(_ other: DiscoveryAggregator) {
        users.mergeValues(other.users) { $0.merge($1) }
        units += other.units
        unitsByFlow.mergeValues(other.unitsByFlow) { $0 += $1 }
        organicHits.mergeValues(other.organicHits) { mine, theirs in mine.mergeValues(theirs) { $0 += $1 } }
        highlights.mergeValues(other.highlights) { mine, theirs in
            if mine.feature == nil { mine.feature = theirs.feature }
            mine.shown += theirs.shown
            mine.alreadyKnew += theirs.alreadyKnew
            mine.discovered += theirs.discovered
            mine.secondsToDiscovery += theirs.secondsToDiscovery
            mine.reasons.mergeValues(theirs.reasons) { reason, more in
                reason.units += more.units
                reason.eligible += more.eligible
                reason.discovered += more.discovered
            }
            mine.flows.mergeValues(theirs.flows) { flow, more in
                flow.units += more.units
                flow.organicHits += more.organicHits
            }
        }
    }
}
