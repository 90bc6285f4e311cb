extension SimulationSampler: SessionAggregator {
    /// Adds another sampler's sessions (of other shards or buckets): its strata, paths and
    /// signatures are renumbered into this sampler's, its users' sessions joined by user.
    public mutating func merge(_ other: SimulationSampler) {
        var strataMap = Array(repeating: Int32(0), count: other.strataEligibility.count)
        for (key, number) in other.strata {
            if let known = strata[key] {
                strataMap[Int(number)] = known
            } else {
                let new = Int32(strata.count)
                strata[key] = new
                strataEligibility.append(key.eligible)
                strataMap[Int(number)] = new
            }
        }
        let candidateMap = candidatePaths.adopt(other.candidatePaths)
        let baselineMap = baselinePaths.adopt(other.baselinePaths)
        let signatureMap = other.signatures.map { signature -> Int32 in
            var renumbered = signature
            renumbered.stratum = strataMap[Int(signature.stratum)]
            renumbered.candidatePath = candidateMap[Int(signature.candidatePath)]
            renumbered.baselinePath = baselineMap[Int(signature.baselinePath)]
            return intern(renumbered)
        }
        for (user, number) in other.singleSessionUsers { addSession(signatureMap[Int(number)], ofUser: user) }
        for (user, numbers) in other.repeatUsers {
            for number in numbers { addSession(signatureMap[Int(number)], ofUser: user) }
        }
        secondsOnStep.appendSamples(other.secondsOnStep)
        selection.merge(other.selection)
        statistics.sessionsRead += other.statistics.sessionsRead
        statistics.sessions += other.statistics.sessions
        statistics.inProgressSessions += other.statistics.inProgressSessions
        statistics.otherSessions += other.statistics.otherSessions
        statistics.otherVersionSessions += other.statistics.otherVersionSessions
        statistics.otherVariantSessions += other.statistics.otherVariantSessions
    }

    /// The same data numbered by content, not by the order sessions arrived in: strata by their
    /// eligibility and value, paths by their condition key, signatures by their fields. The
    /// bootstrap draws in signature order, so this makes the forecast the same however the
    /// sessions were read (one connection, several, or several shards).
    func canonical() -> SimulationSampler {
        var copy = self
        let strataOrder = strata.sorted { Self.precedes($0.key, $1.key) }
        var strataMap = Array(repeating: Int32(0), count: strataEligibility.count)
        copy.strata = [:]
        copy.strataEligibility = []
        for (new, entry) in strataOrder.enumerated() {
            strataMap[Int(entry.value)] = Int32(new)
            copy.strata[entry.key] = Int32(new)
            copy.strataEligibility.append(entry.key.eligible)
        }
        let candidateMap = copy.candidatePaths.renumberByKey()
        let baselineMap = copy.baselinePaths.renumberByKey()
        let renumbered = signatures.map { signature -> Signature in
            var changed = signature
            changed.stratum = strataMap[Int(signature.stratum)]
            changed.candidatePath = candidateMap[Int(signature.candidatePath)]
            changed.baselinePath = baselineMap[Int(signature.baselinePath)]
            return changed
        }
        let order = renumbered.indices.sorted { Self.precedes(renumbered[$0], renumbered[$1]) }
        var signatureMap = Array(repeating: Int32(0), count: renumbered.count)
        copy.signatures = []
        copy.signatureIndex = [:]
        for (new, old) in order.enumerated() {
            signatureMap[old] = Int32(new)
            copy.signatures.append(renumbered[old])
            copy.signatureIndex[renumbered[old]] = Int32(new)
        }
        copy.singleSessionUsers = singleSessionUsers.mapValues { signatureMap[Int($0)] }
        copy.repeatUsers = repeatUsers.mapValues { $0.map { signatureMap[Int($0)] } }
        return copy
    }

    private static func precedes(_ left: StratumKey, _ right: StratumKey) -> Bool {
        if left.eligible != right.eligible { return bitsPrecede(left.eligible, right.eligible) }
        return (left.value ?? "") < (right.value ?? "") || (left.value == nil && right.value != nil)
    }

    private static func precedes(_ left: Signature, _ right: Signature) -> Bool {
        if left.stratum != right.stratum { return left.stratum < right.stratum }
        if left.candidatePath != right.candidatePath { return left.candidatePath < right.candidatePath }
        if left.baselinePath != right.baselinePath { return left.baselinePath < right.baselinePath }
        if left.views != right.views { return left.views.lexicographicallyPrecedes(right.views) }
        if left.skipped != right.skipped { return left.skipped.lexicographicallyPrecedes(right.skipped) }
        return !left.completed && right.completed
    }

    /// `false` before `true`, element by element, shorter first.
    static func bitsPrecede(_ left: [Bool], _ right: [Bool]) -> Bool {
        left.lexicographicallyPrecedes(right) { !$0 && $1 }
    }
}

extension NavigatorPaths {
    /// Takes in another walker's paths; returns, per path number of `other`, its number here.
    mutating func adopt(_ other: NavigatorPaths) -> [Int32] {
        var map = Array(repeating: Int32(0), count: other.paths.count)
        for (key, number) in other.index {
            if let known = index[key] {
                map[Int(number)] = known
            } else {
                let new = Int32(paths.count)
                paths.append(other.paths[Int(number)])
                index[key] = new
                map[Int(number)] = new
            }
        }
        return map
    }

    /// Numbers the paths in the order of their condition keys; returns, per old number, the new one.
    mutating func renumberByKey() -> [Int32] {
        let order = index.sorted { SimulationSampler.bitsPrecede($0.key, $1.key) }
        var map = Array(repeating: Int32(0), count: paths.count)
        var renumbered: [[Int]] = []
        var newIndex: [[Bool]: Int32] = [:]
        for (new, entry) in order.enumerated() {
            map[Int(entry.value)] = Int32(new)
            renumbered.append(paths[Int(entry.value)])
            newIndex[entry.key] = Int32(new)
        }
        paths = renumbered
        index = newIndex
        return map
    }
}
