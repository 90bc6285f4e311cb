import Foundation

extension SessionStore {
    /// Records that the user used a feature, into the session it belongs to (``session(flow:)``)
    /// — so a feature used days after the onboarding still counts for the highlights of that
    /// session — or, with no such session, into the user's session stream.
    /// - Parameters:
    ///   - featureID: the feature's id.
    ///   - flowID: the flow whose session takes it; nil for the most recently active one (pass it
    ///     when the app runs several flows).
    ///   - properties: more about the use, stored with the event.
    /// - Throws: `EventValidationError` or the sink's error.
    public func featureUsed(
        _ featureID: String, flow flowID: String? = nil, properties: [String: JSONValue] = [:]
    ) throws {
        let session = state.withLock { state in
            firstAttachable(flowID.map { [$0] } ?? recentFirst(&state), &state)
        }
        if let session {
            try session.featureUsed(featureID, properties: properties)
        } else {
            try recordDetached(EventDraft(kind: .featureUsed, name: featureID, properties: properties))
        }
    }

    /// Records that a highlight of flow `flowID` was shown, into that flow's session (see
    /// ``featureUsed(_:flow:properties:)``).
    /// - Throws: `SessionStoreError` `.unknownFlow`, `FlowError` `.unknownHighlight` when the flow
    ///   does not declare it, or the sink's error.
    public func highlightShown(_ highlightID: String, flow flowID: String) throws {
        try recordHighlight(flowID) { try $0.showHighlight(highlightID) }
    }

    /// Records that a highlight of flow `flowID` was dismissed, with TipKit's reason.
    /// - Throws: as ``highlightShown(_:flow:)``.
    public func highlightDismissed(_ highlightID: String, reason: DismissReason, flow flowID: String) throws {
        try recordHighlight(flowID) { try $0.dismissHighlight(highlightID, reason: reason) }
    }

    private func recordHighlight(_ flowID: String, _ move: (inout FlowNavigator) throws -> [EventDraft]) throws {
        guard let flow = flows[flowID] else {
            throw SessionStoreError(.unknownFlow, "the store's catalog has no flow '\(flowID)'")
        }
        // The draft (and the check that the flow declares the highlight) from the flow itself.
        var navigator = FlowNavigator(flow: flow, catalog: flows)
        let drafts = try move(&navigator)
        if let session = state.withLock({ attachable(flowID, &$0) }) {
            for draft in drafts {
                switch draft.kind {
                case .highlightShown: try session.highlightShown(draft.name ?? "")
                case .highlightDismissed:
                    let reason = draft.properties["reason"]?.stringValue.flatMap(DismissReason.init(rawValue:))
                    try session.highlightDismissed(draft.name ?? "", reason: reason ?? .closed)
                default: continue
                }
            }
        } else {
            for draft in drafts { try recordDetached(draft) }
        }
    }

    /// The flows of the known sessions, the most recently active first.
    func recentFirst(_ state: inout State) -> [String] {
        knownFlowIDs(state).compactMap { id in savedRecord(id, &state).map { (id, $0.lastActivity) } }
            .sorted { $0.1 > $1.1 }.map(\.0)
    }

    /// Records an event that no session of the store takes, in the user's session stream — the
    /// id under which the server files events that came without a session, and cuts them into
    /// sessions at 30-minute gaps when it reads them (`seq` is then its own, so 0 here).
    func recordDetached(_ draft: EventDraft) throws {
        let user = state.withLock { $0.identity.current }
        var random = SystemRandomNumberGenerator()
        var ids = UUIDv7Generator()
        let now = clock()
        try sink.record(
            contentsOf: [
                Event(
                    draft, eventID: ids.next(at: now, using: &random), sessionID: DerivedSessionID.stream(user: user),
                    userID: user, seq: 0, occurredAt: now)
            ])
    }
}
