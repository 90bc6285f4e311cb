import Foundation

extension Event: Codable {
    enum CodingKeys: String, CodingKey {
        case eventID = "event_id"
        case sessionID = "session_id"
        case userID = "user_id"
        case seq, kind
        case flowID = "flow_id"
        case flowVersion = "flow_version"
        case stepID = "step_id"
        case name
        case occurredAt = "occurred_at"
        case sentAt = "sent_at"
        case receivedAt = "received_at"
        case properties
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        eventID = try container.decode(UUID.self, forKey: .eventID)
        sessionID = try container.decode(UUID.self, forKey: .sessionID)
        userID = try container.decode(String.self, forKey: .userID)
        seq = try container.decode(Int.self, forKey: .seq)
        kind = try container.decode(EventKind.self, forKey: .kind)
        flowID = try container.decodeIfPresent(String.self, forKey: .flowID)
        flowVersion = try container.decodeIfPresent(Int.self, forKey: .flowVersion)
        stepID = try container.decodeIfPresent(String.self, forKey: .stepID)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        occurredAt = try Event.decodeTimestamp(container, .occurredAt)
        sentAt = try container.contains(.sentAt) ? Event.decodeOptionalTimestamp(container, .sentAt) : nil
        receivedAt =
            try container.contains(.receivedAt) ? Event.decodeOptionalTimestamp(container, .receivedAt) : nil
        properties = try container.decodeIfPresent([String: JSONValue].self, forKey: .properties) ?? [:]
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(eventID, forKey: .eventID)
        try container.encode(sessionID, forKey: .sessionID)
        try container.encode(userID, forKey: .userID)
        try container.encode(seq, forKey: .seq)
        try container.encode(kind, forKey: .kind)
        try container.encodeIfPresent(flowID, forKey: .flowID)
        try container.encodeIfPresent(flowVersion, forKey: .flowVersion)
        try container.encodeIfPresent(stepID, forKey: .stepID)
        try container.encodeIfPresent(name, forKey: .name)
        try container.encode(Timestamp.string(occurredAt), forKey: .occurredAt)
        try container.encodeIfPresent(sentAt.map(Timestamp.string), forKey: .sentAt)
        try container.encodeIfPresent(receivedAt.map(Timestamp.string), forKey: .receivedAt)
        try container.encode(properties, forKey: .properties)
    }

    private static func decodeTimestamp(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws
        -> Date
    {
        let text = try container.decode(String.self, forKey: key)
        guard let date = Timestamp.parse(text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container, debugDescription: "not an ISO 8601 timestamp: \(text)")
        }
        return date
    }

    private static func decodeOptionalTimestamp(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys)
        throws -> Date?
    {
        if try container.decodeNil(forKey: key) { return nil }
        return try decodeTimestamp(container, key)
    }
}
