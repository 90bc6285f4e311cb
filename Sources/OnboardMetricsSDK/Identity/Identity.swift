import Foundation

/// Who the app's events are recorded for, as a value: an anonymous id made at first launch, and
/// the user the app identified, if any. No I/O: a ``SessionStore`` saves it and records what
/// ``identify(_:)`` returns.
package struct Identity: Sendable, Hashable, Codable {
    /// The name of the link event, as PostHog's `$identify` and the server's `PersonLinks` read it.
    package static let linkEventName = "$identify"
    /// The property of the link event that holds the anonymous id.
    package static let anonymousIDProperty = "$anon_distinct_id"

    /// Made at first launch (and by ``reset(anonymousID:)``); never sent as anything but a user id
    /// and the link's property.
    package private(set) var anonymousID: String
    /// The user the app identified; nil while anonymous.
    package private(set) var userID: String?

    enum CodingKeys: String, CodingKey {
        case anonymousID = "anonymous_id"
        case userID = "user_id"
    }

    package init(anonymousID: String, userID: String? = nil) {
        self.anonymousID = anonymousID
        self.userID = userID
    }

    /// The id events are recorded for now.
    package var current: String { userID ?? anonymousID }

    /// Identifies the user. Returns the link event to record for them — `custom` `$identify` with
    /// `$anon_distinct_id` = the anonymous id, which the server's reports per user merge into one
    /// person — or nil when there is nothing to link: the same user again, or a switch from
    /// another identified user (the anonymous id is the first user's; linking it to a second would
    /// merge two people, so a switch takes `newAnonymousID` instead).
    package mutating func identify(_ user: String, newAnonymousID: String) -> EventDraft? {
        guard user != userID else { return nil }
        defer { userID = user }
        guard userID == nil, user != anonymousID else {
            if userID != nil { anonymousID = newAnonymousID }
            return nil
        }
        return EventDraft(
            kind: .custom, name: Self.linkEventName, properties: [Self.anonymousIDProperty: .string(anonymousID)])
    }

    /// Forgets the user: a new anonymous identity, linked to nobody.
    package mutating func reset(anonymousID: String) {
        self.anonymousID = anonymousID
        userID = nil
    }

    /// A new anonymous id: `anon-` and a random UUID.
    package static func newAnonymousID(using random: inout some RandomNumberGenerator) -> String {
        "anon-" + UUIDv7Generator.randomV4(using: &random).uuidString.lowercased()
    }
}
