import Foundation

/// The app's onboarding sessions and identity, kept in a folder so that they outlive the process.
///
/// Make one at launch, beside the transport, with the app's flows, and start flows through it:
///
/// ```swift
/// let store = try SessionStore(flows: catalog, sink: transport)
/// let session = try store.start(flow: "health-study", context: ["platform": "ios"])
/// // Later, anywhere, without that object:
/// try store.featureUsed("export-pdf")
/// try store.identify(user: account.id)
/// ```
///
/// - **Resuming.** After every move the session's position (flow, version, step, navigator,
///   `seq`, ids, context, variants) is saved in `sessions/FLOW.json`. ``start(flow:context:variants:exposure:)``
///   on the next launch carries on with that session — same session id, `seq` going on, and no
///   new `session_started` or `step_viewed`: a resumed step is not a new view in the funnel — as
///   long as it was last active less than ``Configuration/inactivityTimeout`` ago (30 minutes).
/// - **Killed.** A move's events are saved in that file with the position *before* the sink
///   gets them (a transport holds them in memory for up to a second); the next launch records
///   the last 30 seconds of moves again when it resumes or closes the session (the server keeps
///   an event id once). A move the sink refuses leaves the file as it was.
/// - **Abandoned.** Past the timeout (or when the app now ships another version of the flow) the
///   saved session is closed with `flow_abandoned` (`properties.reason` = `inactivity`) dated at
///   its last activity — the time the user really left, not the relaunch — and a new session
///   starts.
/// - **After onboarding.** ``featureUsed(_:flow:properties:)`` and the highlight methods record
///   into the flow's latest session while it is within ``Configuration/attachWindow`` of its
///   start (7 days, the default discovery window), so discovery sees them beside the highlights;
///   later ones go to the user's session stream, which the server cuts into sessions itself.
/// - **Identity.** An anonymous id made at first launch; ``identify(user:)`` and ``reset()``.
///
/// A file that cannot be read (torn, edited) is moved aside as `NAME.corrupt` and the store starts
/// fresh; a file that cannot be written leaves the session running in memory. Neither throws;
/// both are kept in ``diagnostics`` and logged by ``OnboardMetricsLog``.
public final class SessionStore: Sendable {
    /// How long sessions last.
    public struct Configuration: Sendable {
        /// Idle seconds after which a session is over: it is then closed as abandoned at its last
        /// activity. Default 1800 (30 minutes, DESIGN.md's inactivity timeout).
        public var inactivityTimeout: TimeInterval = 30 * 60
        /// Seconds after a session's start during which events outside the onboarding (features
        /// used, highlights) still join it. Default 7 days.
        public var attachWindow: TimeInterval = 7 * 24 * 3600
        /// The clock for events and timeouts.
        public var clock: @Sendable () -> Date = { Date() }

        /// The defaults above.
        public init() {}
    }

    struct State: Sendable {
        var identity: Identity
        /// Sessions made in this process, by root flow id: one object per flow.
        var live: [String: OnboardingSession] = [:]
    }

    /// The store's folder.
    public let directory: String
    /// The flows the store can start and resume.
    public let flows: FlowCatalog
    let sink: any EventSink
    let rules: SessionResumption
    let clock: @Sendable () -> Date
    let state: LockedBox<State>
    /// Bumped by ``reset()``: saves of sessions from before it are dropped. Held while a file is
    /// written, so a reset never races a save.
    let generation = LockedBox(0)
    private let problems = LockedBox<[SessionStoreError]>([])

    /// Opens (or makes) the store's folder and reads the identity saved there; the first launch
    /// makes a new anonymous id.
    /// - Parameters:
    ///   - directory: the folder; nil for `OnboardMetrics/APP/state` in Application Support
    ///     (Caches on tvOS), beside the transport's outbox.
    ///   - flows: the app's flows.
    ///   - sink: where events go (the transport, or a ``ConsentGate`` in front of it).
    ///   - configuration: the inactivity timeout, the attach window and the clock.
    /// - Throws: `SessionStoreError` `.io` when the folder cannot be made.
    public init(
        directory: String? = nil, flows: FlowCatalog, sink: any EventSink,
        configuration: Configuration = Configuration()
    ) throws {
        let folder = directory ?? Self.defaultDirectory()
        self.directory = folder
        self.flows = flows
        self.sink = sink
        self.rules = SessionResumption(
            inactivityTimeout: configuration.inactivityTimeout, attachWindow: configuration.attachWindow)
        self.clock = configuration.clock
        do {
            try FileManager.default.createDirectory(
                atPath: folder + "/sessions", withIntermediateDirectories: true)
        } catch {
            throw SessionStoreError(.io, "the session folder \(folder) cannot be made: \(error)")
        }
        var random = SystemRandomNumberGenerator()
        var found: [SessionStoreError] = []
        var identity: Identity
        do {
            identity =
                try StateFile.read(folder + "/identity.json").map {
                    try JSONDecoder().decode(Identity.self, from: $0)
                } ?? Identity(anonymousID: Identity.newAnonymousID(using: &random))
        } catch {
            found.append(Self.setAside(folder + "/identity.json", error))
            identity = Identity(anonymousID: Identity.newAnonymousID(using: &random))
        }
        state = LockedBox(State(identity: identity))
        for problem in found { report(problem) }
        saveIdentity(identity)
    }

    /// `OnboardMetrics/APP/state` in Application Support (Caches on tvOS): the app's SDK folder,
    /// beside its outboxes.
    public static func defaultDirectory() -> String {
        let app = FileName.safe(
            Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName, keeping: "._-")
        return HTTPTransport.Configuration.storageBase.appendingPathComponent(
            "OnboardMetrics/\(app.isEmpty ? "app" : app)/state"
        ).path
    }

    /// Problems with the store's files so far (the last 20), oldest first.
    public var diagnostics: [SessionStoreError] { problems.withLock { $0 } }

    /// Starts flow `flowID`, or resumes its saved session (see the type's rules): a resumed
    /// session records nothing now, and its context and variants are the saved ones. Calling it
    /// again in the same process returns the same session while it runs.
    /// The other parameters are as
    /// ``OnboardingSession/start(flow:catalog:user:context:variants:exposure:sink:clock:random:)``'s;
    /// the user is the store's (``userID``).
    /// - Parameters:
    ///   - flowID: the flow to start or resume (from the store's catalog).
    ///   - context: the session's context (a resumed session keeps its saved one).
    ///   - variants: experiment variants the session was assigned (a resumed one keeps its own).
    ///   - exposure: when the variants' exposure is recorded.
    /// - Throws: `SessionStoreError` `.unknownFlow`, `FlowError` when the flow cannot start, or
    ///   the sink's error.
    public func start(
        flow flowID: String, context: [String: JSONValue] = [:], variants: [String: String] = [:],
        exposure: ExposureTiming = .whenSeen
    ) throws -> OnboardingSession {
        guard let flow = flows[flowID] else {
            throw SessionStoreError(.unknownFlow, "the store's catalog has no flow '\(flowID)'")
        }
        return try state.withLock { state in
            let saved = savedRecord(flowID, &state)
            switch rules.start(saved, flowVersion: flow.version, now: clock()) {
            case .resume:
                if let saved, let session = try resumed(saved, &state) {
                    OnboardMetricsLog.log("resumed session \(saved.sessionID) of \(flowID) at seq \(saved.seq)")
                    return session
                }
                if let saved { try closeFromRecord(saved) }
            case .abandonThenStart:
                if let saved { try close(saved, &state) }
            case .start:
                break
            }
            let session = try OnboardingSession.begin(
                flow: flow, catalog: flows, user: state.identity.current, context: context, variants: variants,
                exposure: exposure, sink: sink, clock: clock, random: SystemRandomNumberGenerator(),
                persist: persister(generation.withLock { $0 }))
            state.live[flowID] = session
            OnboardMetricsLog.log("started session \(session.sessionID) of \(flowID)")
            return session
        }
    }

    /// The session of flow `flowID` that events outside the onboarding join now — this process's
    /// object or the saved one brought back — or nil when there is none within the attach window.
    /// A session found idle past the timeout is first closed as abandoned at its last activity.
    public func session(flow flowID: String) -> OnboardingSession? {
        state.withLock { attachable(flowID, &$0) }
    }

    // MARK: - Internals (called with the state's lock held)

    /// The flow's current record: this process's session's, else the file's.
    func savedRecord(_ flowID: String, _ state: inout State) -> SessionRecord? {
        if let live = state.live[flowID], let record = live.record { return record }
        let path = sessionPath(flowID)
        do {
            guard let data = try StateFile.read(path) else { return nil }
            let record = try SessionRecord.decode(data)
            // Two flow ids can share a file name (characters outside ASCII): the record says whose it is.
            return record.flowID == flowID ? record : nil
        } catch {
            report(Self.setAside(path, error))
            return nil
        }
    }

    /// The session a record describes, as an object (this process's, or brought back); nil, with
    /// a diagnostic, when the app's flows no longer fit it.
    func resumed(_ record: SessionRecord, _ state: inout State) throws -> OnboardingSession? {
        if let live = state.live[record.flowID], live.sessionID == record.sessionID { return live }
        guard let flow = flows.flow(record.flowID, version: record.flowVersion) else {
            report(SessionStoreError(.flowChanged, "flow '\(record.flowID)' v\(record.flowVersion) is not in the app"))
            return nil
        }
        let session: OnboardingSession
        do {
            session = try OnboardingSession.resume(
                record, flow: flow, catalog: flows, user: state.identity.current, sink: sink, clock: clock,
                random: SystemRandomNumberGenerator(), persist: persister(generation.withLock { $0 }))
        } catch {
            report(SessionStoreError(.flowChanged, "session \(record.sessionID) cannot be resumed: \(error)"))
            return nil
        }
        do {
            try recordRecent(record)
        } catch {
            report(SessionStoreError(.io, "the latest events of session \(record.sessionID) were refused: \(error)"))
        }
        state.live[record.flowID] = session
        return session
    }

    /// Closes a running record's session as abandoned at its last activity.
    func close(_ record: SessionRecord, _ state: inout State) throws {
        guard record.isRunning else { return }
        OnboardMetricsLog.log(
            "session \(record.sessionID) of \(record.flowID) abandoned at its last activity "
                + Timestamp.string(record.lastActivity))
        if let session = try resumed(record, &state) {
            try session.abandonIdle()
        } else {
            try closeFromRecord(record)
        }
    }

    /// Closes a session whose flow version the app no longer has: the record alone makes the event.
    func closeFromRecord(_ record: SessionRecord) throws {
        try recordRecent(record)
        var closed = record
        var random = SystemRandomNumberGenerator()
        let event = closed.abandon(using: &random)
        try sink.record(contentsOf: [event])
        save(closed, generation: generation.withLock { $0 })
    }

    /// The session events outside the onboarding join (see ``session(flow:)``).
    func attachable(_ flowID: String, _ state: inout State) -> OnboardingSession? {
        guard let saved = savedRecord(flowID, &state) else { return nil }
        switch rules.attach(saved, now: clock()) {
        case .attach:
            return try? resumed(saved, &state)
        case .abandonThenAttach:
            do {
                try close(saved, &state)
            } catch {
                report(SessionStoreError(.io, "session \(saved.sessionID) could not be closed: \(error)"))
            }
            return try? resumed(saved, &state)
        case .abandonThenDetach:
            try? close(saved, &state)
            return nil
        case .detach:
            return nil
        }
    }

    /// The first of `flowIDs` whose session events outside the onboarding join.
    func firstAttachable(_ flowIDs: [String], _ state: inout State) -> OnboardingSession? {
        for flowID in flowIDs {
            if let session = attachable(flowID, &state) { return session }
        }
        return nil
    }

    /// Flow ids of the sessions this process made or the folder holds.
    func knownFlowIDs(_ state: State) -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory + "/sessions")) ?? []
        let saved = files.filter { $0.hasSuffix(".json") }.compactMap { name -> String? in
            guard let data = FileManager.default.contents(atPath: directory + "/sessions/" + name) else { return nil }
            return (try? SessionRecord.decode(data))?.flowID
        }
        return Array(Set(saved).union(state.live.keys)).sorted()
    }

    // MARK: - Files

    func sessionPath(_ flowID: String) -> String {
        directory + "/sessions/" + FileName.safe(flowID, keeping: "._-") + ".json"
    }

    /// What a session calls after each move: saves its record, unless a reset came since.
    private func persister(_ generation: Int) -> @Sendable (SessionSave) -> Void {
        { [weak self] action in
            switch action {
            case .save(let record): self?.save(record, generation: generation)
            case .remove(let flowID, let sessionID): self?.remove(flowID, sessionID: sessionID, generation: generation)
            }
        }
    }

    /// Removes the flow's file if it still holds `sessionID` (a session whose first move failed).
    func remove(_ flowID: String, sessionID: UUID, generation mine: Int) {
        generation.withLock { current in
            guard current == mine else { return }
            let path = sessionPath(flowID)
            guard let data = try? StateFile.read(path), (try? SessionRecord.decode(data))?.sessionID == sessionID
            else { return }
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    /// Records again the events a record kept of its last moves (``SessionRecord/recent``): the
    /// process that made them may have been killed before its transport wrote them to the
    /// outbox. The server stores an event id once, so those that did get through count once.
    func recordRecent(_ record: SessionRecord) throws {
        guard let recent = record.recent, !recent.isEmpty else { return }
        OnboardMetricsLog.log("recording again the \(recent.count) latest events of session \(record.sessionID)")
        try sink.record(contentsOf: recent)
    }

    func save(_ record: SessionRecord, generation mine: Int) {
        generation.withLock { current in
            guard current == mine else { return }
            do {
                try StateFile.write(record.encoded(), to: sessionPath(record.flowID))
            } catch {
                report(SessionStoreError(.io, "session \(record.sessionID) could not be saved: \(error)"))
            }
        }
    }

    func saveIdentity(_ identity: Identity) {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try StateFile.write(encoder.encode(identity), to: directory + "/identity.json")
        } catch {
            report(SessionStoreError(.io, "the identity could not be saved: \(error)"))
        }
    }

    func report(_ problem: SessionStoreError) {
        OnboardMetricsLog.log("session store: \(problem)")
        problems.withLock { list in
            list.append(problem)
            if list.count > 20 { list.removeFirst(list.count - 20) }
        }
    }

    private static func setAside(_ path: String, _ error: any Error) -> SessionStoreError {
        if let error = error as? SessionStoreError, error.code == .io { return error }
        StateFile.setAside(path)
        return SessionStoreError(
            .corrupt, "\(path) is not readable (\(error)); moved to \(path).corrupt, starting fresh")
    }
}
