import Foundation
import OnboardMetricsSDK

/// A consumer that needs of each event only its time, its `seq` and one number worked out from
/// its flow, kind, step, name and properties (its class): a session file's read hands it sessions
/// of those, working each class out once per distinct set of values, instead of building every
/// event with its strings and properties (which was most of a warm funnel's time).
/// Every other read (the traces, the events, the dashboard's kept sessions) goes through
/// ``SessionConsumer/add(_:)``, and the two must count alike: the class is a pure function of
/// those values.
package protocol ClassifyingSessionConsumer: SessionConsumer {
    /// Whether this consumer, as it was set up, takes classes: when false, a read hands it
    /// decoded sessions (a report that needs more of the events than classes say).
    var readsClasses: Bool { get }

    /// Whether ``add(classified:)`` reads ``ClassifiedSession/userID`` (it is nil otherwise, unless a
    /// cohort needed it).
    var readsUsers: Bool { get }

    /// The class of an event with these values: the same values always give the same class.
    func eventClass(
        kind: EventKind, flowID: String?, stepID: String?, name: String?, properties: [String: JSONValue]
    ) -> UInt64

    /// Takes one session, complete, as ``SessionConsumer/add(_:)`` would take it.
    mutating func add(classified session: ClassifiedSession) throws
}
