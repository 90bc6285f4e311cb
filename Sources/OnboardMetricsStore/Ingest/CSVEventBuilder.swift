import Foundation
import OnboardMetricsSDK

/// Turns CSV records of a clickstream export into events, through a ``ColumnMapping``.
///
/// - kind: the mapped `event` column when it names a kind of the vocabulary, else `custom` with
///   that value as `name`;
/// - session: the mapped column if it is a UUID, else a stable UUID hashed from it;
/// - seq: the row's position within its session in the file, from 1;
/// - event id: a UUIDv7 with the event time and a hash of the row's normalized content (mapped
///   fields in a fixed order, timestamp as an instant, other columns sorted by name), plus how
///   many identical rows of the session came before, so the same file always gives the same ids;
/// - other non-empty columns become string properties.
package struct CSVEventBuilder {
    private let header: [String]
    private let indices: [ColumnMapping.Field: Int]
    /// Property columns as (index, name), sorted by name so ids do not depend on column order.
    private let propertyColumns: [(index: Int, name: String)]
    private let timestamps: TimestampParser
    private var seqBySession: [String: Int] = [:]
    private var seenContent: [ContentKey: Int] = [:]

    private struct ContentKey: Hashable {
        var high: UInt64
        var low: UInt64
    }

    /// - Throws: ``IngestError`` `.mapping` when the header lacks a mapped column.
    package init(header: [String], mapping: ColumnMapping, timestamps: TimestampParser) throws {
        self.header = header
        self.indices = try mapping.indices(in: header)
        let mapped = Set(indices.values)
        self.propertyColumns = header.enumerated().filter { !mapped.contains($0.offset) }
            .map { (index: $0.offset, name: $0.element) }.sorted { $0.name < $1.name }
        self.timestamps = timestamps
    }

    /// The event of one record (not yet validated).
    /// - Throws: `EventValidationError` for a wrong number of fields, an empty required field or
    ///   a timestamp that cannot be read.
    package mutating func event(from fields: [String]) throws -> Event {
        guard fields.count == header.count else {
            throw EventValidationError(
                .malformed, field: "", reason: "the row has \(fields.count) fields; the header has \(header.count)")
        }
        let session = value(.sessionID, fields) ?? ""
        // The position is taken before any check, so fixing a bad row later does not shift the
        // positions of the rows after it.
        let seq = (seqBySession[session] ?? 0) + 1
        seqBySession[session] = seq
        guard !session.isEmpty else { throw Self.missing(.sessionID) }
        guard let user = value(.userID, fields) else { throw Self.missing(.userID) }
        guard let eventName = value(.event, fields) else { throw Self.missing(.event) }
        guard let time = value(.occurredAt, fields) else { throw Self.missing(.occurredAt) }
        guard let occurredAt = timestamps.parse(time) else {
            throw EventValidationError(
                .malformed, field: "occurred_at",
                reason: "is not a timestamp (ISO 8601 or YYYY-MM-DD HH:MM:SS): \(JSONEventParser.quoted(time))")
        }
        let kind = EventKind(rawValue: eventName) ?? .custom
        let name = kind == .custom ? eventName : value(.name, fields)
        let step = value(.step, fields)
        let flow = value(.flowID, fields)
        var properties: [String: JSONValue] = [:]
        let milliseconds = Timestamp.milliseconds(occurredAt)

        var content: [UInt8] = []
        for part in [session, user, kind.rawValue, name ?? "", step ?? "", flow ?? "", String(milliseconds)] {
            content.append(contentsOf: part.utf8)
            content.append(0x1F)
        }
        for column in propertyColumns where !fields[column.index].isEmpty {
            properties[column.name] = .string(fields[column.index])
            content.append(contentsOf: column.name.utf8)
            content.append(0x1E)
            content.append(contentsOf: fields[column.index].utf8)
            content.append(0x1F)
        }
        // Identical rows in one session are distinct events (two taps in the same second).
        let (high, low) = StableID.hash128(content)
        let key = ContentKey(high: high, low: low)
        let occurrence = seenContent[key, default: 0]
        seenContent[key] = occurrence + 1
        content.append(contentsOf: String(occurrence).utf8)

        return Event(
            eventID: StableID.eventID(milliseconds: milliseconds, content: content),
            sessionID: StableID.sessionID(for: session), userID: user, seq: seq, kind: kind, flowID: flow,
            stepID: step, name: name, occurredAt: occurredAt, properties: properties)
    }

    /// The non-empty value of a mapped field.
    private func value(_ field: ColumnMapping.Field, _ fields: [String]) -> String? {
        guard let index = indices[field], !fields[index].isEmpty else { return nil }
        return fields[index]
    }

    private static func missing(_ field: ColumnMapping.Field) -> EventValidationError {
        EventValidationError(.missing, field: field.rawValue, reason: "is empty")
    }
}
