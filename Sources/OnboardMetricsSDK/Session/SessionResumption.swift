import Foundation

/// The rules for a saved session at launch, as a value: resume it, close it as abandoned at its
/// last activity, or start afresh — with the clock reading passed in, and no I/O (the
/// ``SessionStore`` carries the decisions out).
///
/// DESIGN.md's inactivity rule, on the device: a session idle for longer than
/// ``inactivityTimeout`` has ended, and it ended when it was last active — not when the app
/// happened to be opened again. The server's funnel would infer the same drop-off from the last
/// event alone; the SDK still records it (`flow_abandoned` at the last activity time, see
/// ``SessionRecord/abandon(using:)``) so that the session is finished in the data, not merely
/// quiet, and a later event of the user is not taken for the onboarding going on.
package struct SessionResumption: Sendable, Hashable {
    /// What to do when the app starts a flow.
    package enum Start: Sendable, Hashable {
        /// Carry on with the saved session: same id, `seq` going on, no new `session_started`
        /// and no new view of the step on screen.
        case resume
        /// Record `flow_abandoned` for the saved session at `at` (its last activity), then start a
        /// new one.
        case abandonThenStart(at: Date)
        /// Start a new session (none saved, or the saved one finished).
        case start
    }

    /// Where an event recorded outside the onboarding (a feature used, a highlight after the
    /// flow) goes.
    package enum Attach: Sendable, Hashable {
        /// Into the saved session.
        case attach
        /// Close the saved session as abandoned at `at`, then attach to it: the user left the
        /// onboarding, and what they do next still belongs to that session for discovery.
        case abandonThenAttach(at: Date)
        /// Close the saved session as abandoned at `at`; the event goes to no session of it.
        case abandonThenDetach(at: Date)
        /// No session of the flow takes it (none saved, or past ``attachWindow``).
        case detach
    }

    /// Idle seconds after which a running session has ended. Default 30 minutes (DESIGN.md).
    package var inactivityTimeout: TimeInterval
    /// Seconds after a session's start during which later events still join it. Default 7 days
    /// (the default discovery and conversion windows).
    package var attachWindow: TimeInterval

    package init(inactivityTimeout: TimeInterval = 30 * 60, attachWindow: TimeInterval = 7 * 24 * 3600) {
        self.inactivityTimeout = inactivityTimeout
        self.attachWindow = attachWindow
    }

    /// The decision when the app starts flow version `version` at `now`, given the saved record.
    /// A clock that went backwards counts as no time passed.
    package func start(_ saved: SessionRecord?, flowVersion version: Int, now: Date) -> Start {
        guard let saved, saved.isRunning else { return .start }
        if saved.flowVersion == version, !isIdle(saved, now: now) { return .resume }
        return .abandonThenStart(at: saved.lastActivity)
    }

    /// The decision for an event outside the onboarding at `now`, given the saved record.
    package func attach(_ saved: SessionRecord?, now: Date) -> Attach {
        guard let saved else { return .detach }
        let inWindow = now.timeIntervalSince(saved.startedAt) <= attachWindow
        if saved.isRunning, isIdle(saved, now: now) {
            return inWindow ? .abandonThenAttach(at: saved.lastActivity) : .abandonThenDetach(at: saved.lastActivity)
        }
        return inWindow ? .attach : .detach
    }

    /// Whether the session has been idle for longer than the timeout at `now`.
    package func isIdle(_ saved: SessionRecord, now: Date) -> Bool {
        now.timeIntervalSince(saved.lastActivity) > inactivityTimeout
    }
}
