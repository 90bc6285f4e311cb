import Foundation
import OnboardMetricsSDK

/// A body of PostHog's capture API: `POST /batch/` with `{"api_key", "batch": [EVENT, …],
/// "sent_at"}`, or one EVENT (`/capture/`, `/e/`, `/i/v0/e/`), or a JSON array of EVENTs, each
/// `{"event", "distinct_id", "properties", "timestamp", "uuid", …}`.
///
/// PostHog's own event names become Segment's call types: `$screen` a screen (named by
/// `$screen_name`), `$pageview` a page, `$identify` / `$groupidentify` / `$create_alias` the
/// identity calls; any other name is a track call.
package struct PostHogBatch: Sendable {
    package typealias Item = SegmentBatch.Item

    /// `api_key` from the body (or the `token` of the first event's properties, as posthog-js sends it).
    package var apiKey: String?
    package var sentAt: Date?
    package var items: [Item]

    /// Parses a capture body.
    /// - Throws: ``CollectorError`` `.malformedBatch` or `.tooManyEvents`.
    package static func parse(_ body: UnsafeBufferPointer<UInt8>, maximumEvents: Int, timestamps: TimestampParser)
        throws -> PostHogBatch
    {
        var cursor = JSONCursor(body)
        let top: JSONValue
        do {
            top = try cursor.value()
            cursor.skipWhitespace()
            guard cursor.atEnd else { throw cursor.error("text after the JSON value") }
        } catch let error as EventValidationError {
            throw CollectorError(.malformedBatch, SegmentBatch.bodyError(error, at: cursor.index))
        }
        var envelope: [String: JSONValue] = [:]
        let elements: [JSONValue]
        switch top {
        case .array(let array): elements = array
        case .object(let object):
            if case .array(let array)? = object["batch"] {
                envelope = object
                elements = array
            } else if object["event"] != nil {
                envelope = object
                elements = [top]
            } else {
                throw CollectorError(.malformedBatch, "a capture body is an event, a \"batch\" array or an array")
            }
        default:
            throw CollectorError(.malformedBatch, "a capture body is an event, a \"batch\" array or an array")
        }
        guard elements.count <= maximumEvents else {
            throw CollectorError(
                .tooManyEvents, "a batch holds at most \(maximumEvents) events; split it and send the parts")
        }
        let sentAt = (try? envelope.timestamp("sent_at", parser: timestamps, field: "sent_at")) ?? nil
        // The request's key: the body's, else the first event's. Every event that names a key
        // must name that one: a request is authorised once, for one app.
        func key(of object: [String: JSONValue]) -> String? {
            object.text(["api_key", "token"]) ?? object.object("properties")?.text("token")
        }
        var apiKey = envelope.text(["api_key", "token"])
        if apiKey == nil {
            for case .object(let object) in elements {
                if let found = key(of: object) {
                    apiKey = found
                    break
                }
            }
        }
        let items = elements.map { element -> Item in
            guard case .object(let object) = element else {
                return .invalid(
                    messageID: nil, EventValidationError(.malformed, field: "", reason: "an event is a JSON object"))
            }
            if let own = key(of: object), own != apiKey {
                return .invalid(
                    messageID: object.text("uuid"),
                    EventValidationError(.malformed, field: "token", reason: "is not the key the request was sent with")
                )
            }
            do {
                return .message(try message(object, batchSentAt: sentAt, timestamps: timestamps))
            } catch {
                let validation =
                    error as? EventValidationError ?? EventValidationError(.malformed, field: "", reason: "\(error)")
                return .invalid(messageID: object.text("uuid"), validation)
            }
        }
        return PostHogBatch(apiKey: apiKey, sentAt: sentAt, items: items)
    }

    /// Reads one event of PostHog's capture format.
    package static func message(_ object: [String: JSONValue], batchSentAt: Date?, timestamps: TimestampParser) throws
        -> AnalyticsMessage
    {
        guard let event = object.text("event"), !event.isEmpty else {
            throw EventValidationError(.missing, field: "event", reason: "is missing")
        }
        var properties = object.object("properties") ?? [:]
        let type: AnalyticsMessage.CallType
        var name: String? = event
        switch event {
        case "$screen":
            type = .screen
            name = properties.text("$screen_name")
        case "$pageview":
            type = .page
            name = properties.text(["$pathname", "$current_url"])
        case "$identify": type = .identify
        case "$groupidentify": type = .group
        case "$create_alias": type = .alias
        default: type = .track
        }
        var message = AnalyticsMessage(source: .posthog, type: type)
        message.name = name
        message.userID = object.text("distinct_id") ?? properties.text(["distinct_id", "$distinct_id"])
        message.messageID = object.text("uuid")
        // Qualified by the user, as Segment's session ids are: a client that knows (or guesses)
        // another user's $session_id cannot add events to that user's session.
        message.sessionKey = properties.text("$session_id").map { "\(message.userID ?? "")\u{1F}\($0)" }
        for key in ["$set", "$set_once"] where object[key] != nil && properties[key] == nil {
            properties[key] = object[key]
        }
        properties["token"] = nil  // the API key, not a property
        message.properties = properties
        message.occurredAt = try object.timestamp("timestamp", parser: timestamps, field: "timestamp")
        if case .number(let offset)? = object["offset"] {
            // Milliseconds before the sending at which the event happened: bounded like a time.
            guard offset.isFinite, abs(offset) <= Timestamp.largestMilliseconds else {
                throw EventValidationError(
                    .absurdTimestamp, field: "offset",
                    reason: "is not a duration: \(JSONValue.text(offset)) milliseconds")
            }
            message.offsetMilliseconds = offset
        }
        // PostHog corrects the client's clock with sent_at unless the event asks it not to.
        if properties["$ignore_sent_at"]?.boolValue != true {
            message.sentAt = try object.timestamp("sent_at", parser: timestamps, field: "sent_at") ?? batchSentAt
        }
        message.receivedAt = try object.timestamp("received_at", parser: timestamps, field: "received_at")
        return message
    }
}
