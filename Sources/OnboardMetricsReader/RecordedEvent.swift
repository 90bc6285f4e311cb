import Foundation
import OnboardMetricsSDK

/// One recorded event, as replay needs it: what happened, where, and when (skew-corrected).
public struct RecordedEvent: Sendable, Hashable {
    // Stored largest first, `seq` and the flow version in 32 bits each (as the events table
    // holds them): 80 bytes, where in the order of the docs padding made an event 96 (a
    // long-running process keeps millions: `SessionCache`).
    /// The flow the event belongs to.
    public var flowID: String?
    /// The step, where relevant.
    public var stepID: String?
    /// Custom event name, highlight id, feature id or experiment key.
    public var name: String?
    /// Skew-corrected time, microseconds since 1970: in a ``RecordedSession``, the app's
    /// `occurred_at` shifted by its session's clock offset (see ``SessionGrouper``).
    public var time: Int64
    /// The event's properties (empty for most step events).
    public var properties: [String: JSONValue]
    private var storedSeq: Int32
    /// 0 when there is none, so that equal events compare equal.
    private var storedFlowVersion: Int32
    private var hasFlowVersion: Bool
    /// What happened.
    public var kind: EventKind

    /// Position within the session: an `int4`, as the events table holds it (a value beyond
    /// 32 bits is clamped).
    public var seq: Int {
        get { Int(storedSeq) }
        set { storedSeq = Int32(clamping: newValue) }
    }

    /// That flow's version: an `int4`, as the events table holds it (clamped beyond 32 bits).
    public var flowVersion: Int? {
        get { hasFlowVersion ? Int(storedFlowVersion) : nil }
        set {
            hasFlowVersion = newValue != nil
            storedFlowVersion = newValue.map { Int32(clamping: $0) } ?? 0
        }
    }

    /// Creates a recorded event.
    @inline(__always)
    public init(
        kind: EventKind, flowID: String? = nil, flowVersion: Int? = nil, stepID: String? = nil, name: String? = nil,
        time: Int64, seq: Int, properties: [String: JSONValue] = [:]
    ) {
        self.kind = kind
        self.flowID = flowID
        hasFlowVersion = flowVersion != nil
        storedFlowVersion = flowVersion.map { Int32(clamping: $0) } ?? 0
        self.stepID = stepID
        self.name = name
        self.time = time
        storedSeq = Int32(clamping: seq)
        self.properties = properties
    }

    /// The recorded form of a lone event, its time corrected by its own `received_at - sent_at`.
    public init(_ event: Event) {
        self.init(
            kind: event.kind, flowID: event.flowID, flowVersion: event.flowVersion, stepID: event.stepID,
            name: event.name, time: Self.microseconds(event.correctedTime), seq: event.seq,
            properties: event.properties)
    }

    /// The flow-relevant part, for `FlowNavigator.observe(_:)`.
    public var draft: EventDraft {
        EventDraft(
            kind: kind, flowID: flowID, flowVersion: flowVersion, stepID: stepID, name: name, properties: properties)
    }

    /// The time as a date.
    public var date: Date { Date(timeIntervalSince1970: Double(time) / 1_000_000) }

    /// Microseconds since 1970 (the event format's one conversion, `Timestamp.microseconds`).
    public static func microseconds(_ date: Date) -> Int64 { Timestamp.microseconds(date) }
}
