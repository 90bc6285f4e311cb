import Foundation
import OnboardMetricsSDK

/// An ``EventSink`` that keeps what it is given in memory, for tests that drive a flow through
/// ``OnboardingSession`` or ``OnboardingModel`` without UI and assert the exact events recorded.
///
/// It validates like the real sinks (an invalid event is refused and not kept), so a test sees
/// the same errors an app would, and keeps an event id once, as the server stores it: a
/// ``SessionStore`` records a session's latest events again at the next launch (in case the
/// process was killed before its transport wrote them), and those count in ``resent``.
///
/// ```swift
/// let sink = RecordingSink()
/// let session = try OnboardingSession.start(flow: flow, user: "u1", sink: sink)
/// try session.next()
/// #expect(sink.transcript == ["session_started", "step_viewed welcome", "step_completed welcome", "step_viewed consent"])
/// ```
public final class RecordingSink: EventSink, Sendable {
    private struct Recorded {
        var events: [Event] = []
        var ids: Set<UUID> = []
        var resent = 0
    }
    private let recorded = LockedBox(Recorded())
    private let validator = EventValidator()

    /// An empty sink.
    public init() {}

    /// Every event recorded so far, in order.
    public var events: [Event] { recorded.withLock { $0.events } }

    /// Events given again with an id already kept (not in ``events``).
    public var resent: Int { recorded.withLock { $0.resent } }

    /// One line per event: its kind, the step it happened on, the highlight, feature, screen or
    /// experiment it names, and a dismissal's reason or an exposure's variant (`step_viewed
    /// consent`, `highlight_dismissed welcome share-button closed`): compact enough
    /// to compare a whole session with one expectation.
    public var transcript: [String] { events.map(Self.line) }

    /// Forgets what was recorded.
    public func removeAll() { recorded.withLock { $0 = Recorded() } }

    public func record(_ event: Event) throws {
        try record(contentsOf: [event])
    }

    public func record(contentsOf events: [Event]) throws {
        for event in events { try validator.validate(event, now: event.occurredAt) }
        recorded.withLock { recorded in
            for event in events {
                if recorded.ids.insert(event.eventID).inserted {
                    recorded.events.append(event)
                } else {
                    recorded.resent += 1
                }
            }
        }
    }

    static func line(_ event: Event) -> String {
        var parts = [event.kind.rawValue]
        if let step = event.stepID { parts.append(step) }
        if let name = event.name { parts.append(name) }
        for key in ["reason", "variant"] {
            if case .string(let value)? = event.properties[key] { parts.append(value) }
        }
        return parts.joined(separator: " ")
    }
}
