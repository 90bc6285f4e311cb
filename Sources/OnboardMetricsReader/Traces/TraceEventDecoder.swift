import Foundation
import OnboardMetricsPostgres
import OnboardMetricsSDK

/// Turns a trace's current event into what the ``SessionGrouper`` takes — the same values
/// ``RowDecoder`` makes of the same events row (kept beside it line for line: a change to one is
/// a change to both, and the exactness tests compare them).
struct TraceEventDecoder {
    private var flows = StringInterner()
    private var steps = StringInterner()
    private var names = StringInterner()
    private var propertyObjects = PropertiesInterner()

    mutating func decode(_ cursor: TraceCursor) throws -> (Int64, RecordedEvent, Int64?) {
        guard let kind = EventKind(utf8: cursor.kind) else {
            throw PostgresError(
                .invalidValue, "a trace has the unknown kind '\(String(decoding: cursor.kind, as: UTF8.self))'")
        }
        let occurred = cursor.occurred
        let offset = ClockCorrection.offset(occurred: occurred, sent: cursor.sent, received: cursor.received)
        let unixTime = occurred + postgresEpochOffsetMicroseconds
        var properties: [String: JSONValue] = [:]
        if let raw = cursor.properties, !raw.isEmpty { properties = try propertyObjects.object(raw) }
        let streamTime = cursor.eventID.version7Milliseconds.map { $0 * 1000 } ?? unixTime
        let event = RecordedEvent(
            kind: kind, flowID: flows.string(cursor.flowID), flowVersion: cursor.flowVersion.map(Int.init),
            stepID: steps.string(cursor.stepID), name: names.string(cursor.name), time: unixTime,
            seq: Int(cursor.seq), properties: properties)
        return (streamTime, event, offset)
    }
}
