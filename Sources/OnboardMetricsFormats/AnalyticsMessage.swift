import Foundation
import OnboardMetricsSDK

/// One call of a third-party analytics SDK — Segment's (and RudderStack's, which speaks the same
/// protocol) or PostHog's — read from its wire format, before ``EventMapping`` turns it into an
/// ``Event`` of the onboarding vocabulary.
package struct AnalyticsMessage: Sendable, Hashable {
    /// The protocol the call came in.
    package enum Source: String, Sendable, Hashable {
        case segment, posthog
    }

    /// Segment's call types; PostHog's `$screen`, `$pageview`, `$identify`... are mapped to them.
    package enum CallType: String, Sendable, Hashable, CaseIterable {
        case track, screen, page, identify, group, alias
    }

    package var source: Source
    package var type: CallType
    /// The event name of a `track` call, the screen's or page's name.
    package var name: String?
    /// `userId` / `distinct_id`.
    package var userID: String?
    /// `anonymousId`, the user when there is no `userId`.
    package var anonymousID: String?
    /// `messageId` / `uuid`: the dedupe key.
    package var messageID: String?
    /// The session the client named (`$session_id`, RudderStack's `context.sessionId`), if any.
    package var sessionKey: String?
    /// `properties` (`traits` for identify and group calls).
    package var properties: [String: JSONValue]
    /// When the call happened, by the client's clock (see ``EventMapping`` for which field wins).
    package var occurredAt: Date?
    /// The client's clock when it sent the call, to compare with the server's `received_at`; nil
    /// when the protocol says the time is taken as it is.
    package var sentAt: Date?
    /// The server's receipt time, from an export (the collector stamps its own).
    package var receivedAt: Date?
    /// Milliseconds between the call and its sending (PostHog's `offset`), when no time was sent.
    package var offsetMilliseconds: Double?

    package init(source: Source, type: CallType, properties: [String: JSONValue] = [:]) {
        self.source = source
        self.type = type
        self.properties = properties
    }

    /// The user the event is recorded under: `userId`, else `anonymousId`.
    package var user: String? {
        if let userID, !userID.isEmpty { return userID }
        if let anonymousID, !anonymousID.isEmpty { return anonymousID }
        return nil
    }
}

/// Helpers to read the loosely typed fields of analytics payloads.
extension [String: JSONValue] {
    /// A string field; numbers are written as integers where they are (ids are often numbers).
    func text(_ key: String) -> String? {
        switch self[key] {
        case .string(let value)?: value
        case .number(let value)?: JSONValue.text(value)
        case .bool(let value)?: String(value)
        default: nil
        }
    }

    /// The first of `keys` present as text.
    func text(_ keys: [String]) -> String? {
        for key in keys { if let value = text(key), !value.isEmpty { return value } }
        return nil
    }

    func object(_ key: String) -> [String: JSONValue]? {
        if case .object(let value)? = self[key] { return value }
        return nil
    }

    /// A timestamp field: ISO 8601 text, or a number of milliseconds since 1970.
    func timestamp(_ key: String, parser: TimestampParser, field: String) throws -> Date? {
        switch self[key] {
        case nil, .null?: return nil
        case .string(let text)?:
            guard let date = parser.parse(text) else {
                throw EventValidationError(
                    .malformed, field: field, reason: "is not an ISO 8601 timestamp: \(JSONEventParser.quoted(text))")
            }
            return date
        case .number(let milliseconds)?:
            guard let date = Timestamp.date(unixMilliseconds: milliseconds) else {
                throw EventValidationError(
                    .absurdTimestamp, field: field,
                    reason: "is not a time: \(JSONValue.text(milliseconds)) milliseconds since 1970")
            }
            return date
        default:
            throw EventValidationError(.malformed, field: field, reason: "must be an ISO 8601 timestamp")
        }
    }
}
