import Foundation

extension RowDecoder {
    /// A trace's current event, decoded exactly as the same events row would be.
    mutating func decode(_ cursor: TraceCursor) throws -> (Int64, RecordedEvent, Int64?) {
        try decode(
            eventID: cursor.eventID, seq: cursor.seq, kind: cursor.kind, flowID: cursor.flowID,
            flowVersion: cursor.flowVersion, stepID: cursor.stepID, name: cursor.name, occurred: cursor.occurred,
            sent: cursor.sent, received: cursor.received, properties: cursor.properties, source: "a trace")
    }
}
