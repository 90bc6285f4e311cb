import Foundation
import OnboardMetricsReader
import OnboardMetricsSDK

/// Reads recorded sessions of the baseline flow into the compact form the forecast and its
/// bootstrap need: each finished session becomes a *signature* — its stratum, the paths the
/// candidate's and the baseline's navigators take for its context, and the sequence of steps it
/// viewed for the first time, what it skipped and how it ended — and each user the list of their
/// sessions' signatures. Users with the same list are interchangeable in the bootstrap, so a
/// million sessions shrink to a few thousand weighted user types.
public struct SimulationSampler: Sendable {
    /// One finished session, reduced to what the model uses.
    struct Signature: Hashable, Sendable {
        var stratum: Int32
        var candidatePath: Int32
        var baselinePath: Int32
        /// States (see ``SimulationData``) of the steps viewed, in order of their first view.
        var views: [Int32]
        /// States of the steps skipped (and not completed).
        var skipped: [Int32]
        var completed: Bool
    }

    struct StratumKey: Hashable {
        var eligible: [Bool]
        var value: String?
    }

    let options: SimulationOptions
    let replay: FunnelReplay
    var selection: SessionSelection
    var stepIDs: [String]
    var states: [String: Int32] = [:]
    var strata: [StratumKey: Int32] = [:]
    var strataEligibility: [[Bool]] = []
    var candidatePaths: NavigatorPaths
    var baselinePaths: NavigatorPaths
    var signatureIndex: [Signature: Int32] = [:]
    var signatures: [Signature] = []
    /// Users are keyed by a 64-bit hash of their id: two of a million users share one with
    /// probability below 10⁻⁷, and a shared key only merges two users into one bootstrap cluster.
    var singleSessionUsers: [UInt64: Int32] = [:]
    var repeatUsers: [UInt64: [Int32]] = [:]
    /// Seconds on each baseline step, for the recorded medians.
    var secondsOnStep: [DurationSamples]
    var statistics = SimulationReport.DataSummary()

    /// - Throws: `SimulationError` (`.badAssumption`) for an assumption naming no candidate step.
    public init(options: SimulationOptions, now: Date) throws(SimulationError) {
        self.options = options
        for step in options.assumptions.keys.sorted() where options.candidate.step(step) == nil {
            throw SimulationError(
                .badAssumption,
                "--assume \(step): flow '\(options.candidate.id)' has no step '\(step)' "
                    + "(its steps: \(options.candidate.steps.map(\.id).joined(separator: ", ")))")
        }
        var funnelOptions = FunnelOptions()
        funnelOptions.window = options.window
        funnelOptions.inactivity = options.inactivity
        let end = options.until ?? now
        replay = FunnelReplay(
            flow: options.baseline, options: funnelOptions, reportEnd: RecordedEvent.microseconds(end))
        selection = SessionSelection(flowID: options.baseline.id, since: options.since, until: options.until)
        candidatePaths = NavigatorPaths(flow: options.candidate, catalog: options.catalog)
        baselinePaths = NavigatorPaths(flow: options.baseline, catalog: options.catalog)
        // States 0...3 are start, completed, dropped and continued; steps follow, baseline's first.
        stepIDs = options.baseline.steps.map(\.id)
        for step in options.candidate.steps where !stepIDs.contains(step.id) { stepIDs.append(step.id) }
        for (offset, id) in stepIDs.enumerated() { states[id] = Int32(offset) + SimulationData.firstStepState }
        secondsOnStep = Array(repeating: DurationSamples(), count: options.baseline.steps.count)
    }

    /// The state of a step id, if it is a step of either flow.
    func state(of stepID: String) -> Int32? { states[stepID] }

    /// Counts one recorded session.
    /// - Throws: `SimulationError` when a navigator cannot walk the session's context.
    public mutating func add(_ session: RecordedSession) throws(SimulationError) {
        statistics.sessionsRead += 1
        guard selection.accepts(session) else {
            statistics.otherSessions += 1
            return
        }
        if session.flowVersion != nil, session.flowVersion != options.baseline.version {
            statistics.otherVersionSessions += 1
            return
        }
        if let filter = options.variant, session.variant(of: filter.experiment) != filter.variant {
            statistics.otherVariantSessions += 1
            return
        }
        let state = replay.replay(session)
        if state.status == .inProgress {
            statistics.inProgressSessions += 1
            return
        }
        let stratumKey = StratumKey(
            eligible: state.eligible, value: options.stratify.map { Self.attribute($0, of: session.context) })
        let stratum: Int32
        if let known = strata[stratumKey] {
            stratum = known
        } else {
            stratum = Int32(strata.count)
            strata[stratumKey] = stratum
            strataEligibility.append(state.eligible)
        }
        var signature = Signature(
            stratum: stratum, candidatePath: try candidatePaths.path(for: session.context),
            baselinePath: try baselinePaths.path(for: session.context), views: firstViews(session),
            skipped: [], completed: state.status == .completed)
        for (index, skipped) in state.skipped.enumerated() where skipped {
            signature.skipped.append(Int32(index) + SimulationData.firstStepState)
        }
        for (index, microseconds) in state.microsecondsOnStep.enumerated() where microseconds != FunnelUnitState.none {
            secondsOnStep[index].append(microseconds: microseconds)
        }
        let number = intern(signature)
        statistics.sessions += 1
        addSession(number, ofUser: Self.userKey(session.userID))
    }

    /// Counts a session (by signature number) for a user.
    mutating func addSession(_ number: Int32, ofUser user: UInt64) {
        if var sessions = repeatUsers.removeValue(forKey: user) {
            sessions.append(number)
            repeatUsers[user] = sessions
        } else if let first = singleSessionUsers.removeValue(forKey: user) {
            repeatUsers[user] = [first, number]
        } else {
            singleSessionUsers[user] = number
        }
    }

    /// The number of a signature, adding it when new.
    mutating func intern(_ signature: Signature) -> Int32 {
        if let known = signatureIndex[signature] { return known }
        let number = Int32(signatures.count)
        signatureIndex[signature] = number
        signatures.append(signature)
        return number
    }

    /// Steps of either flow viewed in the baseline flow within the window, in order of first view.
    private func firstViews(_ session: RecordedSession) -> [Int32] {
        let end = session.startTime + DurationText.microseconds(options.window)
        var views: [Int32] = []
        for event in session.events {
            guard event.time <= end else { break }
            guard event.kind == .stepViewed, event.flowID == nil || event.flowID == options.baseline.id,
                let stepID = event.stepID, let state = states[stepID], !views.contains(state)
            else { continue }
            views.append(state)
        }
        return views
    }

    /// The data the forecast runs on.
    /// The forecast: the candidate run through the navigator for each sampled session, with the
    /// bootstrap's intervals and the back-test.
    /// - Throws: `SimulationError` for a bad assumption, a step with neither data nor assumption,
    ///   or no usable session.
    public func report() throws(SimulationError) -> SimulationReport {
        try SimulationReport.forecast(self)
    }

    func finish() -> SimulationData {
        var types: [[Int32]: Int] = [:]
        for signature in singleSessionUsers.values { types[[signature], default: 0] += 1 }
        for sessions in repeatUsers.values { types[sessions.sorted(), default: 0] += 1 }
        var summary = statistics
        summary.users = singleSessionUsers.count + repeatUsers.count
        return SimulationData(
            signatures: signatures, userTypes: types, stateCount: SimulationData.firstStepState + Int32(stepIDs.count),
            stratumCount: strataEligibility.count, candidatePaths: candidatePaths.paths,
            baselinePaths: baselinePaths.paths, summary: summary)
    }

    static func attribute(_ name: String, of context: [String: JSONValue]) -> String {
        JSONValue.label(context[name])
    }

    /// FNV-1a, 64 bits, over the id's UTF-8: deterministic across runs, unlike `Hasher`.
    static func userKey(_ id: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in id.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }
}
