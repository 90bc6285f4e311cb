import Foundation
import OnboardMetricsSDK

/// A batch the collector received: `{"sent_at": "…", "events": [EVENT, …]}`, each EVENT in the
/// JSONL event format (docs/EVENT_FORMAT.md) without its newline.
///
/// A batch that is not JSON of that shape is refused whole (its events cannot be told apart);
/// inside a well-formed batch each event stands alone: one bad event is rejected with its field
/// named and the others go on.
package struct EventBatch: Sendable {
    /// One element of `events`: an event that parsed, or why it did not.
    package enum Item: Sendable {
        case event(Event)
        case invalid(eventID: UUID?, EventValidationError)
    }

    /// The client's clock when it sent the batch; what the server's `received_at` is compared with.
    package var sentAt: Date?
    /// The events, in the batch's order.
    package var items: [Item]

    /// Parses a batch body.
    /// - Parameter maximumEvents: more events than this is an error, found before any is parsed.
    /// - Throws: ``CollectorError`` `.malformedBatch` (with the byte offset) or `.tooManyEvents`.
    package static func parse(_ body: UnsafeBufferPointer<UInt8>, maximumEvents: Int) throws -> EventBatch {
        let parser = JSONEventParser()
        var cursor = JSONCursor(body)
        var sentAt: Date?
        var items: [Item] = []
        var sawEvents = false
        // A NUL byte anywhere sends every event through the checked path, which names it.
        let hasNUL = body.baseAddress.map { memchr($0, 0, body.count) != nil } ?? false
        do {
            guard cursor.peek() == 123 else { throw cursor.error("a batch is a JSON object") }
            try cursor.expect(123)
            if !cursor.consume(125) {
                repeat {
                    let key = try cursor.string()
                    try cursor.expect(58)
                    switch key {
                    case "sent_at":
                        if !cursor.consumeNull() {
                            let text = try cursor.string()
                            guard let date = parser.timestamps.parse(text) else {
                                throw CollectorError(
                                    .malformedBatch,
                                    "sent_at is not an ISO 8601 timestamp: \(JSONEventParser.quoted(text))")
                            }
                            sentAt = date
                        }
                    case "events":
                        sawEvents = true
                        try cursor.expect(91)
                        if !cursor.consume(93) {
                            repeat {
                                guard items.count < maximumEvents else {
                                    throw CollectorError(
                                        .tooManyEvents,
                                        "a batch holds at most \(maximumEvents) events; split it and send the parts")
                                }
                                cursor.skipWhitespace()
                                let start = cursor.index
                                // One pass for a valid event (profiled: finding each event's extent
                                // first was 6 % of the collector's CPU). Anything else is read again
                                // the checked way: its extent first, so a syntax error refuses the
                                // batch and a bad event is rejected alone, exactly as before.
                                if !hasNUL, cursor.peek() == 123,
                                    let event = try? parser.parseObject(&cursor, propertiesDepth: 2)
                                {
                                    items.append(.event(event))
                                } else {
                                    cursor.index = start
                                    try cursor.skipValue()
                                    let element = UnsafeBufferPointer(rebasing: body[start..<cursor.index])
                                    items.append(Self.item(element, parser: parser))
                                }
                            } while cursor.consume(44)
                            try cursor.expect(93)
                        }
                    default:
                        throw CollectorError(
                            .malformedBatch,
                            "unknown key \(JSONEventParser.quoted(key)): a batch has sent_at and events")
                    }
                } while cursor.consume(44)
                try cursor.expect(125)
            }
            cursor.skipWhitespace()
            guard cursor.atEnd else { throw cursor.error("text after the batch object") }
        } catch let error as EventValidationError {
            // The cursor names a column; the body may hold many lines, so call it a byte offset.
            throw CollectorError(
                .malformedBatch,
                "the body is not valid JSON (byte \(cursor.index + 1)): "
                    + error.reason.replacingOccurrences(
                        of: #"invalid JSON at column \d+: "#, with: "", options: .regularExpression))
        }
        guard sawEvents else { throw CollectorError(.malformedBatch, "the batch has no events array") }
        return EventBatch(sentAt: sentAt, items: items)
    }

    private static func item(_ element: UnsafeBufferPointer<UInt8>, parser: JSONEventParser) -> Item {
        guard element.first == 123 else {
            return .invalid(
                eventID: nil, EventValidationError(.malformed, field: "", reason: "an event is a JSON object"))
        }
        do {
            return .event(try parser.parse(element))
        } catch {
            let validation =
                error as? EventValidationError ?? EventValidationError(.malformed, field: "", reason: "\(error)")
            // Only a rejected event is read a second time: for its id, so the client can match the result.
            var cursor = JSONCursor(element)
            var eventID: UUID?
            if case .string(let text)? = (try? cursor.object())?["event_id"] { eventID = UUID(uuidString: text) }
            return .invalid(eventID: eventID, validation)
        }
    }
}
