import Foundation
import OnboardMetricsSDK

/// A body of Segment's HTTP Tracking API (also what RudderStack's SDKs send): `POST /v1/batch`
/// with `{"batch": [MESSAGE, …], "sentAt", "writeKey"?, "context"?}`, or one MESSAGE posted to
/// `/v1/track`, `/v1/identify`, `/v1/page`, `/v1/screen`, `/v1/group`, `/v1/alias`.
///
/// Like the native batch, a body that is not JSON of that shape is refused whole; inside it each
/// message stands alone, so one bad message is rejected with its field and the others go on.
package struct SegmentBatch: Sendable {
    /// One message: read, or why not.
    package enum Item: Sendable {
        case message(AnalyticsMessage)
        case invalid(messageID: String?, EventValidationError)
    }

    /// `writeKey` from the body (clients may send it there instead of HTTP Basic auth).
    package var writeKey: String?
    /// The batch's `sentAt`, by the client's clock.
    package var sentAt: Date?
    package var items: [Item]

    /// Parses a `/v1/batch` body.
    /// - Throws: ``CollectorError`` `.malformedBatch` or `.tooManyEvents`.
    package static func parseBatch(_ body: UnsafeBufferPointer<UInt8>, maximumEvents: Int, timestamps: TimestampParser)
        throws -> SegmentBatch
    {
        let object = try Self.topObject(body)
        guard case .array(let elements)? = object["batch"] else {
            throw CollectorError(.malformedBatch, "a Segment batch has a \"batch\" array")
        }
        guard elements.count <= maximumEvents else {
            throw CollectorError(
                .tooManyEvents, "a batch holds at most \(maximumEvents) events; split it and send the parts")
        }
        let sentAt = try? object.timestamp("sentAt", parser: timestamps, field: "sentAt")
        let items = elements.map { element -> Item in
            guard case .object(let message) = element else {
                return .invalid(
                    messageID: nil, EventValidationError(.malformed, field: "", reason: "a message is a JSON object"))
            }
            return item(message, defaultType: nil, batchSentAt: sentAt ?? nil, timestamps: timestamps)
        }
        return SegmentBatch(writeKey: object.text("writeKey"), sentAt: sentAt ?? nil, items: items)
    }

    /// Parses the body of a single-call endpoint; `type` comes from the path when the body has none.
    package static func parseSingle(
        _ body: UnsafeBufferPointer<UInt8>, type: AnalyticsMessage.CallType, timestamps: TimestampParser
    ) throws -> SegmentBatch {
        let object = try Self.topObject(body)
        let sentAt = try? object.timestamp("sentAt", parser: timestamps, field: "sentAt")
        return SegmentBatch(
            writeKey: object.text("writeKey"), sentAt: sentAt ?? nil,
            items: [item(object, defaultType: type, batchSentAt: sentAt ?? nil, timestamps: timestamps)])
    }

    /// Reads one message of Segment's spec (common fields, then the call's own).
    package static func message(
        _ object: [String: JSONValue], defaultType: AnalyticsMessage.CallType?, batchSentAt: Date?,
        timestamps: TimestampParser
    ) throws -> AnalyticsMessage {
        let typeText = object.text("type")?.lowercased()
        guard let type = typeText.flatMap(AnalyticsMessage.CallType.init(rawValue:)) ?? defaultType else {
            throw EventValidationError(
                typeText == nil ? .missing : .malformed, field: "type",
                reason: typeText.map { "unknown call type \(JSONEventParser.quoted($0))" } ?? "is missing")
        }
        var message = AnalyticsMessage(source: .segment, type: type)
        message.userID = object.text("userId")
        message.anonymousID = object.text("anonymousId")
        message.messageID = object.text("messageId")
        switch type {
        case .track:
            guard let event = object.text("event"), !event.isEmpty else {
                throw EventValidationError(.missing, field: "event", reason: "is required for a track call")
            }
            message.name = event
            message.properties = object.object("properties") ?? [:]
        case .screen, .page:
            message.properties = object.object("properties") ?? [:]
            message.name = object.text("name") ?? message.properties.text("name")
        case .identify, .group:
            message.properties = object.object("traits") ?? [:]
            if let group = object.text("groupId") { message.properties["group_id"] = .string(group) }
        case .alias:
            if let previous = object.text("previousId") { message.properties["previous_id"] = .string(previous) }
        }
        if let context = object.object("context"), let session = context.text("sessionId") {
            // RudderStack's mobile SDKs number sessions per device: qualify it by the device's id.
            message.sessionKey = "\(message.anonymousID ?? message.userID ?? "")\u{1F}\(session)"
        }
        let original = try object.timestamp("originalTimestamp", parser: timestamps, field: "originalTimestamp")
        let timestamp = try object.timestamp("timestamp", parser: timestamps, field: "timestamp")
        message.occurredAt = original ?? timestamp
        message.sentAt = try object.timestamp("sentAt", parser: timestamps, field: "sentAt") ?? batchSentAt
        message.receivedAt = try object.timestamp("receivedAt", parser: timestamps, field: "receivedAt")
        return message
    }

    private static func item(
        _ object: [String: JSONValue], defaultType: AnalyticsMessage.CallType?, batchSentAt: Date?,
        timestamps: TimestampParser
    ) -> Item {
        do {
            return .message(
                try message(object, defaultType: defaultType, batchSentAt: batchSentAt, timestamps: timestamps))
        } catch {
            let validation =
                error as? EventValidationError ?? EventValidationError(.malformed, field: "", reason: "\(error)")
            return .invalid(messageID: object.text("messageId"), validation)
        }
    }

    /// The body as one JSON object, or the error naming the byte where it stops being one.
    static func topObject(_ body: UnsafeBufferPointer<UInt8>) throws -> [String: JSONValue] {
        var cursor = JSONCursor(body)
        do {
            guard cursor.peek() == 123 else { throw cursor.error("the body is a JSON object") }
            let object = try cursor.object()
            cursor.skipWhitespace()
            guard cursor.atEnd else { throw cursor.error("text after the JSON object") }
            return object
        } catch let error as EventValidationError {
            throw CollectorError(.malformedBatch, Self.bodyError(error, at: cursor.index))
        }
    }

    /// A cursor's error restated with a byte offset (a body may hold many lines).
    static func bodyError(_ error: EventValidationError, at index: Int) -> String {
        "the body is not valid JSON (byte \(index + 1)): "
            + error.reason.replacingOccurrences(
                of: #"invalid JSON at column \d+: "#, with: "", options: .regularExpression)
    }
}
