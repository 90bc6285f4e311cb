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

    /// Decodes one line of the JSONL format.
    public static func decode(jsonLine: some StringProtocol) throws -> Event {
        try JSONDecoder().decode(Event.self, from: Data(jsonLine.utf8))
    }

    /// Appends the JSONL form of the event (without newline) to `bytes`.
    ///
    /// Hand-written because JSONEncoder per line is several times too slow for the generator.
    package func appendJSONLine(to bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"{"event_id":""#.utf8)
        JSONWriter.appendUUID(eventID, to: &bytes)
        bytes.append(contentsOf: #"","session_id":""#.utf8)
        JSONWriter.appendUUID(sessionID, to: &bytes)
        bytes.append(contentsOf: #"","user_id":"#.utf8)
        JSONWriter.appendString(userID, to: &bytes)
        bytes.append(contentsOf: #","seq":"#.utf8)
        JSONWriter.appendInt(seq, to: &bytes)
        bytes.append(contentsOf: #","kind":""#.utf8)
        bytes.append(contentsOf: kind.rawValue.utf8)
        bytes.append(UInt8(ascii: "\""))
        if let flowID {
            bytes.append(contentsOf: #","flow_id":"#.utf8)
            JSONWriter.appendString(flowID, to: &bytes)
        }
        if let flowVersion {
            bytes.append(contentsOf: #","flow_version":"#.utf8)
            JSONWriter.appendInt(flowVersion, to: &bytes)
        }
        if let stepID {
            bytes.append(contentsOf: #","step_id":"#.utf8)
            JSONWriter.appendString(stepID, to: &bytes)
        }
        if let name {
            bytes.append(contentsOf: #","name":"#.utf8)
            JSONWriter.appendString(name, to: &bytes)
        }
        bytes.append(contentsOf: #","occurred_at":""#.utf8)
        Timestamp.append(milliseconds: Timestamp.milliseconds(occurredAt), to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        if let sentAt {
            bytes.append(contentsOf: #","sent_at":""#.utf8)
            Timestamp.append(milliseconds: Timestamp.milliseconds(sentAt), to: &bytes)
            bytes.append(UInt8(ascii: "\""))
        }
        if let receivedAt {
            bytes.append(contentsOf: #","received_at":""#.utf8)
            Timestamp.append(milliseconds: Timestamp.milliseconds(receivedAt), to: &bytes)
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(contentsOf: #","properties":"#.utf8)
        JSONWriter.appendObject(properties, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
    }
}
