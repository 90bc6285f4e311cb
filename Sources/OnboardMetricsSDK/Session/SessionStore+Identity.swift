import Foundation

extension SessionStore {
    /// The anonymous id made at first launch (or by the last ``reset()``).
    public var anonymousID: String { state.withLock { $0.identity.anonymousID } }
    /// The user ``identify(user:)`` named; nil while the user is anonymous.
    public var identifiedUserID: String? { state.withLock { $0.identity.userID } }
    /// The id events are recorded for now: the identified user, else the anonymous id.
    public var userID: String { state.withLock { $0.identity.current } }

    /// Names the user (after sign-in): from now on events are recorded for `user` (those recorded
    /// before keep the anonymous id), and one link event joins the two ids — `custom` `$identify`
    /// for `user` with `properties.$anon_distinct_id` = the anonymous id, recorded into the most
    /// recently active session (else the user's session stream), which the server's reports per
    /// user read to count them as one person. The same user again records nothing; another user
    /// than the identified one switches to them without a link (with a new anonymous id), so that
    /// two people are never merged.
    /// - Throws: `EventValidationError` or the sink's error (the user is identified all the same).
    public func identify(user: String) throws {
        var random = SystemRandomNumberGenerator()
        let (identified, link, target): (Identity?, EventDraft?, OnboardingSession?) = state.withLock { state in
            var identity = state.identity
            let link = identity.identify(user, newAnonymousID: Identity.newAnonymousID(using: &random))
            guard identity != state.identity else { return (nil, nil, nil) }
            state.identity = identity
            for session in state.live.values { session.setUser(identity.current) }
            OnboardMetricsLog.log("identified as \(user)\(link == nil ? "" : ", linked to the anonymous id")")
            guard link != nil else { return (identity, nil, nil) }
            let target = firstAttachable(recentFirst(&state), &state)
            target?.setUser(identity.current)
            return (identity, link, target)
        }
        guard let identified else { return }
        // The identity is saved after the link is recorded: a process killed in between comes
        // back anonymous, and the app's next identify records the link again. Saved first, a kill
        // could keep the identity and lose the link (an identify of the same user records none).
        defer { state.withLock { if $0.identity == identified { saveIdentity(identified) } } }
        guard let link else { return }
        if let target {
            try target.custom(link.name ?? Identity.linkEventName, properties: link.properties)
        } else {
            try recordDetached(link)
        }
    }

    /// Forgets the user on this device (sign-out): a new anonymous id linked to nobody, and the
    /// sessions of the previous person left — a running one closed as abandoned at its last
    /// activity, their files deleted — so the next person's events join none of them. To also
    /// opt out of analytics, use ``ConsentGate/optOut(forgetting:)``.
    /// - Throws: the sink's error for a closing event (the reset happens all the same).
    public func reset() throws {
        var random = SystemRandomNumberGenerator()
        var failure: (any Error)?
        state.withLock { state in
            for flowID in knownFlowIDs(state) {
                guard let saved = savedRecord(flowID, &state) else { continue }
                do { try close(saved, &state) } catch { failure = failure ?? error }
            }
            generation.withLock { current in
                current += 1
                let folder = directory + "/sessions"
                for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
                    try? FileManager.default.removeItem(atPath: folder + "/" + name)
                }
            }
            state.live = [:]
            var identity = state.identity
            identity.reset(anonymousID: Identity.newAnonymousID(using: &random))
            state.identity = identity
            saveIdentity(identity)
            OnboardMetricsLog.log("identity reset to a new anonymous id")
        }
        if let failure { throw failure }
    }
}
