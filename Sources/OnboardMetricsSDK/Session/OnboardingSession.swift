import Foundation

/// One user's run through an onboarding flow, as app code drives it: each method moves a
/// ``FlowNavigator`` and records the events the move implies through an ``EventSink``.
///
/// Every method returns at once (recording never waits for the database), so a session can be
/// driven from the main actor. An illegal move (skipping a step that is not skippable, going to
/// an undeclared step) throws `FlowError` and records nothing. The type is safe to share between
/// threads; moves are applied one at a time in the order they are made.
///
/// Sendable by a lock rather than an actor so that moves stay synchronous on the app's main thread
/// (an actor would make every button tap `await`); `Mutex` would need iOS 18. What a move changes
/// (the navigator, `seq`, the id generator and its random source) is one value in a
/// `LockedBox`, reached only with its lock held.
public final class OnboardingSession: Sendable {
    /// The session's id (random, version 4).
    public let sessionID: UUID
    /// The user the session's events are recorded for now: the one it started with, until a
    /// ``SessionStore`` identifies the user (events recorded before keep the id they had).
    public var userID: String { state.withLock { $0.userID } }
    /// Experiment variants this session was assigned, by experiment key.
    public let variants: [String: String]

    private let sink: any EventSink
    private let clock: @Sendable () -> Date
    private let state: LockedBox<State>
    /// Called with the session's record after every move that recorded events, with the lock held
    /// (so records are saved in the order of the moves); set by a ``SessionStore``.
    private let persist: (@Sendable (SessionSave) -> Void)?

    /// What a move changes; a move works on a copy and stores it back only once its events are
    /// recorded.
    private struct State: Sendable {
        var navigator: FlowNavigator
        var ids = UUIDv7Generator()
        var random: AnyRandomNumberGenerator
        var seq = 0
        /// Experiments whose exposure this session recorded.
        var exposed: Set<String> = []
        var userID: String
        /// When `session_started` and the last event were recorded (nil before the first move).
        var startedAt: Date?
        var lastActivity: Date?
        /// The events of the latest moves, saved with the position (``SessionRecord/recent``).
        var recent: [Event] = []
    }

    /// Starts a session: records `session_started` (with the context), the experiment exposures
    /// when `exposure` is ``ExposureTiming/atStart``, and the view of the first step whose
    /// condition holds.
    /// - Parameters:
    ///   - flow: the flow definition (e.g. loaded from examples/flows).
    ///   - catalog: the flows that hand-offs may enter.
    ///   - user: the user's id.
    ///   - context: attributes known at start (`platform`, `appVersion`, `healthDataAvailable`, ...).
    ///   - variants: experiment key → variant already assigned to this user (see the experiments
    ///     issue's `Assignment`).
    ///   - exposure: when each variant's `experiment_exposure` is recorded: as the app shows it
    ///     (``exposed(to:)``, the default) or at once.
    ///   - sink: where events go, usually an `EventRecorder`.
    ///   - clock: the time source for `occurred_at`.
    ///   - random: randomness for the session and event ids (a seeded generator gives
    ///     reproducible ids); the session keeps it, so it is Sendable.
    /// - Throws: `FlowError` when the flow cannot start, `EventValidationError` for invalid input.
    public static func start(
        flow: FlowDefinition, catalog: FlowCatalog? = nil, user: String, context: [String: JSONValue] = [:],
        variants: [String: String] = [:], exposure: ExposureTiming = .whenSeen, sink: any EventSink,
        clock: @escaping @Sendable () -> Date = { Date() },
        random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) throws -> OnboardingSession {
        try begin(
            flow: flow, catalog: catalog, user: user, context: context, variants: variants, exposure: exposure,
            sink: sink, clock: clock, random: random, persist: nil)
    }

    /// ``start(flow:catalog:user:context:variants:exposure:sink:clock:random:)`` that also hands
    /// each move's record to `persist` (a ``SessionStore``'s file).
    package static func begin(
        flow: FlowDefinition, catalog: FlowCatalog?, user: String, context: [String: JSONValue],
        variants: [String: String], exposure: ExposureTiming, sink: any EventSink,
        clock: @escaping @Sendable () -> Date, random: any RandomNumberGenerator & Sendable,
        persist: (@Sendable (SessionSave) -> Void)?
    ) throws -> OnboardingSession {
        var random = AnyRandomNumberGenerator(base: random)
        let session = OnboardingSession(
            sessionID: UUIDv7Generator.randomV4(using: &random), variants: variants, sink: sink, clock: clock,
            persist: persist,
            state: State(
                navigator: FlowNavigator(flow: flow, catalog: catalog, context: context), random: random,
                userID: user))
        try session.moveState { state in
            var drafts = try state.navigator.start()
            guard exposure == .atStart else { return drafts }
            // Exposures right after session_started, before the first step is viewed.
            let keys = variants.keys.sorted()
            let exposures = keys.flatMap { key in
                state.navigator.exposure(experiment: key, variant: variants[key] ?? "")
            }
            state.exposed.formUnion(keys)
            drafts.insert(contentsOf: exposures, at: min(1, drafts.count))
            return drafts
        }
        return session
    }

    /// Records that the user now sees this session's variant of `experimentKey`, once per session
    /// (later calls, and calls for experiments the user is not in, record nothing). Call it where
    /// the variant is rendered, e.g. in the step view's `onAppear`.
    /// - Returns: whether an exposure was recorded now.
    /// - Throws: `EventValidationError` when the sink refuses the event.
    @discardableResult
    public func exposed(to experimentKey: String) throws -> Bool {
        guard let variant = variants[experimentKey] else { return false }
        var recorded = false
        try moveState { state in
            guard state.exposed.insert(experimentKey).inserted else { return [] }
            recorded = true
            return state.navigator.exposure(experiment: experimentKey, variant: variant)
        }
        return recorded
    }

    private init(
        sessionID: UUID, variants: [String: String], sink: any EventSink, clock: @escaping @Sendable () -> Date,
        persist: (@Sendable (SessionSave) -> Void)?, state: State
    ) {
        self.sessionID = sessionID
        self.variants = variants
        self.sink = sink
        self.clock = clock
        self.persist = persist
        self.state = LockedBox(state)
    }

    /// The session a record describes, put back where it was: nothing is recorded (a resumed
    /// step is not viewed again), and the next event takes the record's `seq` + 1.
    /// - Throws: `FlowError` when the record does not fit `flow` and `catalog`.
    package static func resume(
        _ record: SessionRecord, flow: FlowDefinition, catalog: FlowCatalog?, user: String, sink: any EventSink,
        clock: @escaping @Sendable () -> Date, random: any RandomNumberGenerator & Sendable,
        persist: (@Sendable (SessionSave) -> Void)?
    ) throws(FlowError) -> OnboardingSession {
        let navigator = try FlowNavigator(
            restoring: record.navigator, flow: flow, catalog: catalog, context: record.context)
        var state = State(navigator: navigator, random: AnyRandomNumberGenerator(base: random), userID: user)
        state.seq = record.seq
        state.exposed = Set(record.exposed)
        state.startedAt = record.startedAt
        state.lastActivity = record.lastActivity
        state.recent = record.recent ?? []
        return OnboardingSession(
            sessionID: record.sessionID, variants: record.variants, sink: sink, clock: clock, persist: persist,
            state: state)
    }

    /// What a ``SessionStore`` saves of the session now (nil before its first event).
    package var record: SessionRecord? { state.withLock { record(of: $0) } }

    private func record(of state: State) -> SessionRecord? {
        guard let startedAt = state.startedAt, let lastActivity = state.lastActivity else { return nil }
        return SessionRecord(
            sessionID: sessionID, userID: state.userID, flowID: state.navigator.flow.id,
            flowVersion: state.navigator.flow.version, context: state.navigator.context, variants: variants,
            exposed: state.exposed.sorted(), seq: state.seq, startedAt: startedAt, lastActivity: lastActivity,
            navigator: state.navigator.snapshot, recent: state.recent)
    }

    /// Records the later events for `user` (after ``SessionStore/identify(user:)`` or a reset).
    package func setUser(_ user: String) {
        state.withLock { state in
            guard state.userID != user else { return }
            state.userID = user
            if let record = record(of: state) { persist?(.save(record)) }
        }
    }

    /// The step on screen, `nil` once the flow finished.
    public var currentStep: Step? {
        state.withLock { $0.navigator.isFinished ? nil : $0.navigator.currentStep }
    }
    /// Running, completed or abandoned.
    public var status: FlowNavigator.Status { state.withLock { $0.navigator.status } }
    /// How far the session is through the flow on screen.
    public var progress: FlowNavigator.Progress { state.withLock { $0.navigator.progress } }
    /// Whether ``skip()`` is allowed now.
    public var canSkip: Bool { state.withLock { $0.navigator.canSkip } }
    /// Whether ``back()`` is allowed now.
    public var canGoBack: Bool { state.withLock { $0.navigator.canGoBack } }
    /// The navigator's state, read in one step (what ``OnboardingModel`` publishes after a move).
    public var navigatorSnapshot: FlowNavigator { state.withLock { $0.navigator } }

    /// Completes the current step and shows the next one whose condition holds.
    public func next() throws { try move { try $0.next() } }
    /// Skips the current step. - Throws: `FlowError` `.notSkippable` unless the step is skippable.
    public func skip() throws { try move { try $0.skip() } }
    /// Completes the current step and jumps to a declared step of the current flow.
    public func goTo(_ stepID: String) throws { try move { try $0.goTo(stepID) } }
    /// Returns to the previous step.
    public func back() throws { try move { try $0.back() } }
    /// Shows a screen that is not in the flow; the position in the flow does not change.
    public func showCustom(_ name: String, properties: [String: JSONValue] = [:]) throws {
        try move { try $0.showCustom(name, properties: properties) }
    }
    /// A spotlight highlight declared by the flow was shown.
    public func highlightShown(_ highlightID: String) throws { try move { try $0.showHighlight(highlightID) } }
    /// A highlight was dismissed, with TipKit's reason.
    public func highlightDismissed(_ highlightID: String, reason: DismissReason) throws {
        try move { try $0.dismissHighlight(highlightID, reason: reason) }
    }
    /// The user used a feature (also after onboarding finished: that is what discovery measures).
    public func featureUsed(_ featureID: String, properties: [String: JSONValue] = [:]) throws {
        try move { $0.featureUsed(featureID, properties: properties) }
    }
    /// A named application event.
    public func custom(_ name: String, properties: [String: JSONValue] = [:]) throws {
        try move { $0.custom(name, properties: properties) }
    }

    /// Completes the last step, finishing the flow.
    /// - Throws: `FlowError` `.notLastStep` when steps whose conditions hold remain (use ``next()``).
    public func complete() throws {
        try move { navigator in
            var attempt = navigator
            let drafts = try attempt.next()
            guard attempt.status == .completed else {
                let step = navigator.currentStep?.id ?? "?"
                throw FlowError(.notLastStep, "step '\(step)' is not the last step; call next() to continue the flow")
            }
            navigator = attempt
            return drafts
        }
    }

    /// The user left onboarding at the current step.
    public func abandon() throws { try move { try $0.abandon() } }

    /// Closes a session found idle past the inactivity timeout: `flow_abandoned` (with `reason`
    /// `inactivity`) dated at its last activity, not now. Nothing when the flow is not running.
    package func abandonIdle() throws {
        let last = state.withLock { $0.lastActivity }
        guard let last, status == .running else { return }
        try moveState(at: last) { state in
            var drafts = try state.navigator.abandon()
            for index in drafts.indices { drafts[index].properties["reason"] = "inactivity" }
            return drafts
        }
    }

    /// Applies a navigator move and records its events. A move is atomic: its events go to the
    /// sink together (``EventSink/record(contentsOf:)`` validates all before recording any), so a
    /// move that throws records nothing and leaves the position and `seq` unchanged.
    private func move(_ transition: (inout FlowNavigator) throws -> [EventDraft]) throws {
        try moveState { try transition(&$0.navigator) }
    }

    /// ``move(_:)`` over the whole state (the navigator and what the session remembers).
    /// `at` times the events instead of the clock (an abandonment found later is dated back).
    private func moveState(at time: Date? = nil, _ transition: (inout State) throws -> [EventDraft]) throws {
        try state.withLock { state in
            var next = state
            let drafts = try transition(&next)
            let now = time ?? clock()
            var events: [Event] = []
            events.reserveCapacity(drafts.count)
            for draft in drafts {
                next.seq += 1
                events.append(
                    Event(
                        draft, eventID: next.ids.next(at: now, using: &next.random), sessionID: sessionID,
                        userID: next.userID, seq: next.seq, occurredAt: now))
            }
            guard !events.isEmpty else {
                state = next
                return
            }
            if next.startedAt == nil { next.startedAt = now }
            next.lastActivity = now
            next.recent = SessionRecord.keepRecent(next.recent + events, now: now)
            // Saved before it is recorded (a write-ahead log): a process killed after this line
            // has the move's events in the file, and the next launch records them again (the
            // server keeps an event id once); killed before it, the move never happened.
            if let persist, let record = record(of: next) { persist(.save(record)) }
            do {
                // With the lock held, so that moves reach the sink in the order they are made.
                try sink.record(contentsOf: events)
            } catch {
                if let persist {
                    persist(
                        record(of: state).map { .save($0) }
                            ?? .remove(flowID: next.navigator.flow.id, sessionID: sessionID))
                }
                throw error
            }
            state = next
        }
    }
}
