extension DiscoveryAggregator: SessionAggregator {
    public mutating func merge(_ other: DiscoveryAggregator) {
        users.merge(other.users)
        units += other.units
        treated.merge(other.treated)
        held.merge(other.held)
        shownTreated.mergeValues(other.shownTreated) { $0 += $1 }
        unitsByFlow.mergeValues(other.unitsByFlow) { $0 += $1 }
        organicHits.mergeValues(other.organicHits) { mine, theirs in mine.mergeValues(theirs) { $0 += $1 } }
        unnamed.mergeValues(other.unnamed) { $0 += $1 }
        highlights.mergeValues(other.highlights) { mine, theirs in
            mine.feature = Self.smaller(mine.feature, theirs.feature)
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
                flow.organicHits.mergeValues(more.organicHits) { $0 += $1 }
            }
        }
    }
}

extension DiscoveryAggregator.ArmCounts {
    mutating func merge(_ other: Self) {
        units += other.units
        knew.mergeValues(other.knew) { $0 += $1 }
        used.mergeValues(other.used) { $0 += $1 }
        variants.formUnion(other.variants)
    }
}
