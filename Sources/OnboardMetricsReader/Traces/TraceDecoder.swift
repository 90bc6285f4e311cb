import Foundation
import OnboardMetricsSDK

/// Decodes the events of session traces into what the events-row path makes of the same rows
/// (``RowDecoder``'s kinds, properties and events), turning each of a trace's strings into its
/// value once, at its first use, rather than once per event: a trace stores each string once,
/// and comparing and hashing the same bytes on every event was a fifth of a report's time.
struct TraceDecoder {
    private var rows = RowDecoder()
    /// The current trace's values by string number - 1; `nil` until first used in that role.
    private var strings: [String?] = []
    private var kinds: [EventKind?] = []
    private var objects: [[String: JSONValue]?] = []

    /// Starts a trace: forgets the previous one's values (keeping the buffers).
    mutating func start(_ cursor: TraceCursor) {
        strings.removeAll(keepingCapacity: true)
        kinds.removeAll(keepingCapacity: true)
        objects.removeAll(keepingCapacity: true)
        strings.append(contentsOf: repeatElement(nil, count: cursor.stringCount))
        kinds.append(contentsOf: repeatElement(nil, count: cursor.stringCount))
        objects.append(contentsOf: repeatElement(nil, count: cursor.stringCount))
    }

    /// The cursor's current event: stream time, the event and its clock offset, as
    /// ``RowDecoder`` makes them from the same events row.
    mutating func decode(_ cursor: TraceCursor) throws -> (Int64, RecordedEvent, Int64?) {
        RowDecoder.event(
            eventID: cursor.eventID, seq: cursor.seq, kind: try kind(cursor), flowID: string(cursor.flowNumber, cursor),
            flowVersion: cursor.flowVersion, stepID: string(cursor.stepNumber, cursor),
            name: string(cursor.nameNumber, cursor), occurred: cursor.occurred, sent: cursor.sent,
            received: cursor.received, properties: try properties(cursor))
    }

    /// The current event's user id ("" for none, as an events row without one reads).
    mutating func userID(_ cursor: TraceCursor) -> String {
        string(cursor.userNumber, cursor) ?? ""
    }

    private mutating func string(_ number: Int, _ cursor: TraceCursor) -> String? {
        guard let bytes = cursor.string(number) else { return nil }
        if let known = strings[number - 1] { return known }
        let string = String(decoding: bytes, as: UTF8.self)
        strings[number - 1] = string
        return string
    }

    private mutating func kind(_ cursor: TraceCursor) throws -> EventKind {
        let number = cursor.kindNumber
        if let known = kinds[number - 1] { return known }
        let kind = try RowDecoder.kind(cursor.kind, source: "a trace")
        kinds[number - 1] = kind
        return kind
    }

    private mutating func properties(_ cursor: TraceCursor) throws -> [String: JSONValue] {
        let number = cursor.propertiesNumber
        guard number > 0 else { return [:] }
        if let known = objects[number - 1] { return known }
        let object = try rows.properties(cursor.properties)
        objects[number - 1] = object
        return object
    }
}
