import Foundation

extension Event {
    /// The event as one line of the JSONL format, without the trailing newline.
    ///
    /// Keys come in a fixed order (the column order) and absent optional fields are left out, so
    /// the same event always gives the same bytes.
    public var jsonLine: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(320)
        appendJSONLine(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Decodes one line of the JSONL format with `JSONEventParser`, the reader every part shares.
    /// - Throws: `EventValidationError` naming the field.
    public static func decode(jsonLine: some StringProtocol) throws -> Event {
        try decode(jsonBytes: Array(jsonLine.utf8))
    }

    /// Decodes one event of the JSONL format from its UTF-8 bytes (no newline).
    package static func decode(jsonBytes: [UInt8]) throws -> Event {
        try jsonBytes.withUnsafeBufferPointer { try JSONEventParser().parse($0) }
    }

    /// Appends the JSONL form of the event (without newline) to `bytes`.
    ///
    /// Hand-written because JSONEncoder per line is several times too slow for the generator.
    package func appendJSONLine(to bytes: inout [UInt8]) {
        JSONWriter.appendLiteral(#"{"event_id":""#, to: &bytes)
        JSONWriter.appendUUID(eventID, to: &bytes)
        JSONWriter.appendLiteral(#"","session_id":""#, to: &bytes)
        JSONWriter.appendUUID(sessionID, to: &bytes)
        JSONWriter.appendLiteral(#"","user_id":"#, to: &bytes)
        JSONWriter.appendString(userID, to: &bytes)
        JSONWriter.appendLiteral(#","seq":"#, to: &bytes)
        JSONWriter.appendInt(seq, to: &bytes)
        JSONWriter.appendLiteral(#","kind":""#, to: &bytes)
        bytes.append(contentsOf: kind.rawValue.utf8)
        bytes.append(UInt8(ascii: "\""))
        if let flowID {
            JSONWriter.appendLiteral(#","flow_id":"#, to: &bytes)
            JSONWriter.appendString(flowID, to: &bytes)
        }
        if let flowVersion {
            JSONWriter.appendLiteral(#","flow_version":"#, to: &bytes)
            JSONWriter.appendInt(flowVersion, to: &bytes)
        }
        if let stepID {
            JSONWriter.appendLiteral(#","step_id":"#, to: &bytes)
            JSONWriter.appendString(stepID, to: &bytes)
        }
        if let name {
            JSONWriter.appendLiteral(#","name":"#, to: &bytes)
            JSONWriter.appendString(name, to: &bytes)
        }
        JSONWriter.appendLiteral(#","occurred_at":""#, to: &bytes)
        Timestamp.append(milliseconds: Timestamp.milliseconds(occurredAt), to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        if let sentAt {
            JSONWriter.appendLiteral(#","sent_at":""#, to: &bytes)
            Timestamp.append(milliseconds: Timestamp.milliseconds(sentAt), to: &bytes)
            bytes.append(UInt8(ascii: "\""))
        }
        if let receivedAt {
            JSONWriter.appendLiteral(#","received_at":""#, to: &bytes)
            Timestamp.append(milliseconds: Timestamp.milliseconds(receivedAt), to: &bytes)
            bytes.append(UInt8(ascii: "\""))
        }
        JSONWriter.appendLiteral(#","properties":"#, to: &bytes)
        JSONWriter.appendObject(properties, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
    }
}
