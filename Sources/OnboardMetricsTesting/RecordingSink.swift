import Foundation
import OnboardMetricsSDK

/// An ``EventSink`` that keeps what it is given in memory, for tests that drive a flow through
/// ``OnboardingSession`` or ``OnboardingModel`` without UI and assert the exact events recorded.
///
/// It validates like the real sinks (an invalid event is refused and not kept), so a test sees
/// the same errors an app would.
///
/// ```swift
/// let sink = RecordingSink()
/// let session = try OnboardingSession.start(flow: flow, user: "u1", sink: sink)
/// try session.next()
/// #expect(sink.transcript == ["session_started", "step_viewed welcome", "step_completed welcome", "step_viewed consent"])
/// ```
public final class RecordingSink: EventSink, Sendable {
    private let recorded = LockedBox<[Event]>([])
    private let validator = EventValidator()

    /// An empty sink.
    public init() {}

    /// Every event recorded so far, in order.
    public var events: [Event] { recorded.withLock { $0 } }

    /// One line per event: its kind, the step it happened on, the highlight, feature, screen or
    /// experiment it names, and a dismissal's reason or an exposure's variant (`step_viewed
    /// consent`, `highlight_dismissed welcome share-button closed`): compact enough
    /// to compare a whole session with one expectation.
    public var transcript: [String] { events.map(Self.line) }

    /// Forgets what was recorded.
    public func removeAll() { recorded.withLock { $0.removeAll() } }

    public func record(_ event: Event) throws {
        try record(contentsOf: [event])
    }

    public func record(contentsOf events: [Event]) throws {
        for event in events { try validator.validate(event, now: event.occurredAt) }
        recorded.withLock { $0.append(contentsOf: events) }
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
