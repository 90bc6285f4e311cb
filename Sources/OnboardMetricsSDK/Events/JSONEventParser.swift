import Foundation

/// Reads one line of the JSONL event format (docs/EVENT_FORMAT.md, what `Event.jsonLine` writes)
/// into an ``Event``, by hand and from bytes.
///
/// The keys are the `Event` coding keys. A key outside the format is refused (a typo such as
/// `"step"` for `"step_id"` would otherwise lose data silently). Optional keys may be absent or
/// `null`. Timestamps may be any form `TimestampParser` reads; ones without a zone are in its
/// time zone (UTC unless set).
///
/// Hand-written rather than `JSONDecoder` because it pays for itself: the micro-benchmark
/// Benchmarks/JSONEventParsing measured 1.9 ms against 20 ms per 1,000 lines and 3 against 72
/// allocations per line (`ONBOARDMETRICS_BENCHMARKS=1 swift package benchmark --target JSONEventParsing`).
package struct JSONEventParser: Sendable {
    /// How timestamps are read.
    package var timestamps: TimestampParser

    package init(timestamps: TimestampParser = TimestampParser()) {
        self.timestamps = timestamps
    }

    /// The event on `line`.
    /// - Throws: `EventValidationError` (`.malformed` for bad JSON, an unknown key or kind, a bad
    ///   id or timestamp; `.missing` for an absent required key).
    package func parse(_ line: UnsafeBufferPointer<UInt8>) throws -> Event {
        if let base = line.baseAddress, memchr(base, 0, line.count) != nil {
            throw EventValidationError(.nulCharacter, field: "", reason: "the line contains a NUL byte")
        }
        var cursor = JSONCursor(line)
        let event = try parseObject(&cursor, propertiesDepth: 0)
        cursor.skipWhitespace()
        guard cursor.atEnd else { throw cursor.error("text after the event object") }
        return event
    }

    /// The event object that starts at `cursor`, leaving the cursor just after it: how a batch
    /// reads its events in one pass. The caller checks for NUL bytes.
    /// - Parameter propertiesDepth: the nesting depth the properties object counts as (a batch
    ///   counts its own levels too, so the limit is the same as for its syntax check).
    package func parseObject(_ cursor: inout JSONCursor, propertiesDepth: Int) throws -> Event {
        var eventID: UUID?
        var sessionID: UUID?
        var userID: String?
        var seq: Int?
        var kind: EventKind?
        var flowID: String?
        var flowVersion: Int?
        var stepID: String?
        var name: String?
        var occurredAt: Date?
        var sentAt: Date?
        var receivedAt: Date?
        var properties: [String: JSONValue] = [:]

        try cursor.expect(123)
        // Keys seen, one bit each: a key given twice is ambiguous (which one counts?), so refused.
        var seen: UInt16 = 0
        if !cursor.consume(125) {
            repeat {
                let key = try cursor.withRawString { Key(raw: $0) }
                try cursor.expect(58)
                do {
                    if key.bit != 0 {
                        guard seen & key.bit == 0 else {
                            throw EventValidationError(.malformed, field: key.spelling, reason: "appears twice")
                        }
                        seen |= key.bit
                    }
                    switch key {
                    case .unknown(let name):
                        throw EventValidationError(.malformed, field: name, reason: "is not a key of the event format")
                    case .eventID: eventID = try uuid(&cursor, "event_id")
                    case .sessionID: sessionID = try uuid(&cursor, "session_id")
                    case .userID: userID = cursor.consumeNull() ? nil : try cursor.string()
                    case .seq: seq = cursor.consumeNull() ? nil : try cursor.integer()
                    case .kind:
                        if !cursor.consumeNull() {
                            let start = cursor.index
                            if let value = try cursor.withRawString(Self.kind) {
                                kind = value
                            } else {
                                // Not a kind: read it again as a checked string, for the exact error.
                                cursor.index = start
                                let text = try cursor.string()
                                guard let value = EventKind(rawValue: text) else {
                                    throw EventValidationError(
                                        .malformed, field: "kind", reason: "unknown kind \(Self.quoted(text))")
                                }
                                kind = value
                            }
                        }
                    case .flowID: flowID = cursor.consumeNull() ? nil : try cursor.string()
                    case .flowVersion: flowVersion = cursor.consumeNull() ? nil : try cursor.integer()
                    case .stepID: stepID = cursor.consumeNull() ? nil : try cursor.string()
                    case .name: name = cursor.consumeNull() ? nil : try cursor.string()
                    case .occurredAt: occurredAt = try timestamp(&cursor, "occurred_at")
                    case .sentAt: sentAt = try timestamp(&cursor, "sent_at")
                    case .receivedAt: receivedAt = try timestamp(&cursor, "received_at")
                    case .properties:
                        if !cursor.consumeNull() {
                            guard cursor.peek() == 123 else {
                                throw EventValidationError(
                                    .malformed, field: "properties", reason: "must be a JSON object")
                            }
                            properties = try cursor.object(depth: propertiesDepth)
                        }
                    }
                } catch var error as EventValidationError where error.field.isEmpty {
                    // A syntax error inside a value (bad UTF-8, a broken escape) names its key.
                    error.field = key.spelling
                    throw error
                }
            } while cursor.consume(44)
            try cursor.expect(125)
        }

        guard let eventID else { throw Self.missing("event_id") }
        guard let sessionID else { throw Self.missing("session_id") }
        guard let userID else { throw Self.missing("user_id") }
        guard let seq else { throw Self.missing("seq") }
        guard let kind else { throw Self.missing("kind") }
        guard let occurredAt else { throw Self.missing("occurred_at") }
        return Event(
            eventID: eventID, sessionID: sessionID, userID: userID, seq: seq, kind: kind, flowID: flowID,
            flowVersion: flowVersion, stepID: stepID, name: name, occurredAt: occurredAt, sentAt: sentAt,
            receivedAt: receivedAt, properties: properties)
    }

    /// The keys of the format, recognized from raw bytes without building a String per key.
    private enum Key {
        case eventID, sessionID, userID, seq, kind, flowID, flowVersion, stepID, name, occurredAt, sentAt
        case receivedAt, properties
        case unknown(String)

        private static let all: [(StaticString, Key)] = [
            ("event_id", .eventID), ("session_id", .sessionID), ("user_id", .userID), ("seq", .seq),
            ("kind", .kind), ("flow_id", .flowID), ("flow_version", .flowVersion), ("step_id", .stepID),
            ("name", .name), ("occurred_at", .occurredAt), ("sent_at", .sentAt), ("received_at", .receivedAt),
            ("properties", .properties),
        ]

        /// The key's bit in a set of keys seen; 0 for an unknown key.
        var bit: UInt16 {
            switch self {
            case .eventID: 1 << 0
            case .sessionID: 1 << 1
            case .userID: 1 << 2
            case .seq: 1 << 3
            case .kind: 1 << 4
            case .flowID: 1 << 5
            case .flowVersion: 1 << 6
            case .stepID: 1 << 7
            case .name: 1 << 8
            case .occurredAt: 1 << 9
            case .sentAt: 1 << 10
            case .receivedAt: 1 << 11
            case .properties: 1 << 12
            case .unknown: 0
            }
        }

        /// The key as the format spells it.
        var spelling: String {
            switch self {
            case .eventID: "event_id"
            case .sessionID: "session_id"
            case .userID: "user_id"
            case .seq: "seq"
            case .kind: "kind"
            case .flowID: "flow_id"
            case .flowVersion: "flow_version"
            case .stepID: "step_id"
            case .name: "name"
            case .occurredAt: "occurred_at"
            case .sentAt: "sent_at"
            case .receivedAt: "received_at"
            case .properties: "properties"
            case .unknown(let name): name
            }
        }

        init(raw: UnsafeBufferPointer<UInt8>) {
            if let base = raw.baseAddress {
                // The first byte before memcmp: most keys then cost one call (profiled: memcmp was
                // 4 % of the parser's time).
                for (name, key) in Self.all
                where name.utf8CodeUnitCount == raw.count && name.utf8Start.pointee == base.pointee
                    && memcmp(name.utf8Start, base, raw.count) == 0
                {
                    self = key
                    return
                }
            }
            self = .unknown(String(decoding: raw, as: UTF8.self))
        }
    }

    /// The kinds' spellings as bytes: a kind is matched without building a String (profiled:
    /// `EventKind(rawValue:)` on a new String was 3 % of the collector's CPU).
    private static let kinds: [([UInt8], EventKind)] = EventKind.allCases.map { (Array($0.rawValue.utf8), $0) }

    private static func kind(_ raw: UnsafeBufferPointer<UInt8>) -> EventKind? {
        guard let base = raw.baseAddress else { return nil }
        for (spelling, kind) in kinds where spelling.count == raw.count {
            // memcmp rather than `elementsEqual`, which compared byte by byte through generics.
            let equal = spelling.withUnsafeBufferPointer { bytes in
                bytes.baseAddress.map { memcmp($0, base, raw.count) == 0 } ?? false
            }
            if equal { return kind }
        }
        return nil
    }

    private func uuid(_ cursor: inout JSONCursor, _ key: String) throws -> UUID? {
        if cursor.consumeNull() { return nil }
        return try cursor.withRawString { raw in
            guard let uuid = StableID.parseUUID(raw) else {
                throw EventValidationError(.malformed, field: key, reason: "is not a UUID")
            }
            return uuid
        }
    }

    private func timestamp(_ cursor: inout JSONCursor, _ key: String) throws -> Date? {
        if cursor.consumeNull() { return nil }
        return try cursor.withRawString { raw in
            guard let date = timestamps.parse(raw) else {
                throw EventValidationError(
                    .malformed, field: key,
                    reason:
                        "is not a timestamp (ISO 8601 or YYYY-MM-DD HH:MM:SS): \(Self.quoted(String(decoding: raw, as: UTF8.self)))"
                )
            }
            return date
        }
    }

    private static func missing(_ field: String) -> EventValidationError {
        EventValidationError(.missing, field: field, reason: "is missing")
    }

    /// A value quoted for a message, cut short so a huge value does not flood the rejects file.
    package static func quoted(_ text: String) -> String {
        let limit = 60
        return text.count <= limit ? "\"\(text)\"" : "\"\(text.prefix(limit))…\""
    }
}
