import Foundation
import OnboardMetricsSDK

/// Decodes the events of session traces into what the events-row path makes of the same rows
/// (``RowDecoder``'s kinds, properties and events), turning each of a trace's strings into its
/// value once, at its first use, rather than once per event: a trace stores each string once,
/// and comparing and hashing the same bytes on every event was a fifth of a report's time.
struct TraceDecoder {
    private var rows = RowDecoder()
    /// The current trace's values by string number - 1, each valid when its `trace` is the
    /// current one: a new trace only bumps the number instead of clearing three arrays.
    private var values: [Value] = []
    private var trace: UInt32 = 0

    /// The kinds apart from the other values: a kind holds no reference, so claiming its slot
    /// releases nothing (kinds were about 5 % of a warm `--steps` report's samples, `perf`).
    private var kinds: [Kind] = []

    private struct Value {
        var trace: UInt32 = 0
        var string: String?
        var object: [String: JSONValue]?
    }

    private struct Kind {
        var trace: UInt32 = 0
        var kind = EventKind.custom
    }

    /// Starts a trace: the previous one's values no longer count.
    mutating func start(_ cursor: TraceCursor) {
        trace &+= 1
        if trace == 0 {
            // After 2^32 traces the stamps wrap: forget every value once.
            values = []
            kinds = []
            trace = 1
        }
        if values.count < cursor.stringCount {
            values.append(contentsOf: repeatElement(Value(), count: cursor.stringCount - values.count))
            kinds.append(contentsOf: repeatElement(Kind(), count: cursor.stringCount - kinds.count))
        }
    }

    /// The cursor's current event: stream time, the event and its clock offset, as
    /// ``RowDecoder`` makes them from the same events row.
    mutating func decode(_ cursor: TraceCursor) throws -> (Int64, RecordedEvent, Int64?) {
        try RowDecoder.event(
            eventID: cursor.eventID, seq: cursor.seq, kind: try kind(cursor), flowID: string(cursor.flowNumber, cursor),
            flowVersion: cursor.flowVersion, stepID: string(cursor.stepNumber, cursor),
            name: string(cursor.nameNumber, cursor), occurred: cursor.occurred, sent: cursor.sent,
            received: cursor.received, properties: try properties(cursor))
    }

    /// The user id of string `number` (its `bytes`, from the cursor) ("" for none, as an events
    /// row without one reads).
    mutating func userID(number: Int, bytes: UnsafeRawBufferPointer?) -> String {
        string(number, bytes) ?? ""
    }

    private mutating func string(_ number: Int, _ cursor: TraceCursor) -> String? {
        string(number, cursor.string(number))
    }

    private mutating func string(_ number: Int, _ bytes: UnsafeRawBufferPointer?) -> String? {
        guard let bytes else { return nil }
        let slot = number - 1
        if values[slot].trace == trace, let known = values[slot].string { return known }
        let string = String(decoding: bytes, as: UTF8.self)
        claim(slot)
        values[slot].string = string
        return string
    }

    private mutating func kind(_ cursor: TraceCursor) throws -> EventKind {
        let slot = cursor.kindNumber - 1
        if kinds[slot].trace == trace { return kinds[slot].kind }
        let kind = try RowDecoder.kind(cursor.kind, source: "a trace")
        kinds[slot] = Kind(trace: trace, kind: kind)
        return kind
    }

    private mutating func properties(_ cursor: TraceCursor) throws -> [String: JSONValue] {
        guard cursor.propertiesNumber > 0 else { return [:] }
        let slot = cursor.propertiesNumber - 1
        if values[slot].trace == trace, let known = values[slot].object { return known }
        let object = try rows.properties(cursor.properties)
        claim(slot)
        values[slot].object = object
        return object
    }

    /// Makes the slot the current trace's, emptied first when it still holds another trace's.
    private mutating func claim(_ slot: Int) {
        guard values[slot].trace != trace else { return }
        values[slot] = Value(trace: trace)
    }
}
