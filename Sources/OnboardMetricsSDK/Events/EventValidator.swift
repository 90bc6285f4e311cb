import Foundation

/// Checks an event before it is accepted for recording, so that nothing the database would
/// refuse ever reaches a batch (one bad event must not fail the others).
public struct EventValidator: Sendable {
    /// Longest id or name (user, flow, step, custom name), in characters.
    public static let maximumNameLength = 200
    /// Largest properties object, in bytes of JSON.
    public static let maximumPropertiesBytes = 64 * 1024
    /// Earliest plausible event time: before 2000, a client clock is broken.
    public static let earliest = Date(timeIntervalSince1970: 946_684_800)
    /// How far ahead of the validating clock an event may be (client clocks drift).
    public var futureTolerance: TimeInterval = 24 * 3600
    /// How far the time in a UUIDv7 `event_id` may be from `occurred_at`. Both come from the same
    /// client clock when the event is made, so a larger gap means a forged or broken id, and
    /// `events` is partitioned by that time: an id dated 2130 must not make the database create
    /// a partition for 2130.
    public var idTimeTolerance: TimeInterval = 24 * 3600

    /// Creates a validator.
    public init() {}

    /// Throws the first problem found in `event`, judged against the clock reading `now`.
    /// - Throws: `EventValidationError` naming the field.
    public func validate(_ event: Event, now: Date) throws {
        if event.eventID == Self.nilUUID {
            throw EventValidationError(.missing, field: "event_id", reason: "is missing")
        }
        if event.sessionID == Self.nilUUID {
            throw EventValidationError(.missing, field: "session_id", reason: "is missing")
        }
        if event.userID.isEmpty { throw EventValidationError(.missing, field: "user_id", reason: "is empty") }
        guard event.seq >= 0, event.seq <= Int(Int32.max) else {
            throw EventValidationError(.outOfRange, field: "seq", reason: "must be between 0 and \(Int32.max)")
        }
        if let version = event.flowVersion, version < 0 || version > Int(Int32.max) {
            throw EventValidationError(.outOfRange, field: "flow_version", reason: "must be between 0 and \(Int32.max)")
        }
        try checkName(event.userID, field: "user_id")
        try event.flowID.map { try checkName($0, field: "flow_id") }
        try event.stepID.map { try checkName($0, field: "step_id") }
        try event.name.map { try checkName($0, field: "name") }
        if event.kind.isStepEvent, (event.stepID ?? "").isEmpty {
            throw EventValidationError(.missing, field: "step_id", reason: "is required for \(event.kind.rawValue)")
        }
        if event.kind == .custom, (event.name ?? "").isEmpty {
            throw EventValidationError(.missing, field: "name", reason: "is required for custom events")
        }
        try checkTime(event.occurredAt, field: "occurred_at", now: now)
        try checkIDTime(event)
        try event.sentAt.map { try checkTime($0, field: "sent_at", now: now) }
        try event.receivedAt.map { try checkTime($0, field: "received_at", now: now) }
        if let suffix = Self.nulPath(in: event.properties) {
            throw EventValidationError(
                .nulCharacter, field: "properties" + suffix, reason: "contains a NUL character (\\u0000)")
        }
        // Encoding the properties to measure them cost a third of `record` (scripts/bench-sdk.sh);
        // the bound is exact enough to skip it for everything but objects near the limit.
        if Self.jsonSizeBound(of: event.properties) > Self.maximumPropertiesBytes {
            var json: [UInt8] = []
            JSONWriter.appendObject(event.properties, to: &json)
            if json.count > Self.maximumPropertiesBytes {
                throw EventValidationError(
                    .tooLarge, field: "properties",
                    reason: "is \(json.count) bytes of JSON; at most \(Self.maximumPropertiesBytes) are allowed")
            }
        }
    }

    private static let nilUUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    private func checkName(_ value: String, field: String) throws {
        // No more UTF-8 bytes than the limit: no more characters either, without counting them.
        if value.utf8.count > Self.maximumNameLength, value.unicodeScalars.count > Self.maximumNameLength {
            throw EventValidationError(
                .tooLong, field: field,
                reason: "is \(value.unicodeScalars.count) characters; at most \(Self.maximumNameLength) are allowed")
        }
        try checkNUL(value, field: field)
    }

    private func checkNUL(_ value: String, field: String) throws {
        if value.containsNUL {
            throw EventValidationError(.nulCharacter, field: field, reason: "contains a NUL character (\\u0000)")
        }
    }

    private func checkTime(_ date: Date, field: String, now: Date) throws {
        if date < Self.earliest {
            throw EventValidationError(.absurdTimestamp, field: field, reason: "is before 2000-01-01")
        }
        if date > now.addingTimeInterval(futureTolerance) {
            throw EventValidationError(
                .absurdTimestamp, field: field,
                reason: "is more than \(Int(futureTolerance / 3600)) hours in the future")
        }
    }

    private func checkIDTime(_ event: Event) throws {
        guard let milliseconds = event.eventID.version7Milliseconds else { return }
        let gap = Double(milliseconds) / 1000 - event.occurredAt.timeIntervalSince1970
        if abs(gap) > idTimeTolerance {
            throw EventValidationError(
                .absurdTimestamp, field: "event_id",
                reason:
                    "its UUIDv7 time \(Timestamp.string(Timestamp.date(milliseconds: milliseconds))) is more than "
                    + "\(Int(idTimeTolerance / 3600)) hours from occurred_at \(Timestamp.string(event.occurredAt))")
        }
    }

    /// Where the first NUL is in a key or string of `object`, as a path below it (`""` for a key
    /// of the object itself, `.key`, `.key[2]`); `nil` without one. Built only when found: the
    /// paths of valid properties are never needed.
    private static func nulPath(in object: [String: JSONValue]) -> String? {
        for (key, value) in object {
            if key.containsNUL { return "" }
            if let inner = nulPath(in: value) { return ".\(key)" + inner }
        }
        return nil
    }

    private static func nulPath(in value: JSONValue) -> String? {
        switch value {
        case .string(let string): return string.containsNUL ? "" : nil
        case .array(let array):
            for (index, element) in array.enumerated() {
                if let inner = nulPath(in: element) { return "[\(index)]" + inner }
            }
            return nil
        case .object(let object): return nulPath(in: object)
        case .null, .bool, .number: return nil
        }
    }

    /// At least the bytes `JSONWriter` writes for `object`: every string byte counted as its
    /// longest escape (`\u00XX`), every number as the longest a `Double` prints.
    static func jsonSizeBound(of object: [String: JSONValue]) -> Int {
        object.reduce(2) { total, entry in total + 6 * entry.key.utf8.count + 4 + jsonSizeBound(of: entry.value) }
    }

    static func jsonSizeBound(of value: JSONValue) -> Int {
        switch value {
        case .null, .bool: return 5
        case .number: return 32
        case .string(let string): return 6 * string.utf8.count + 2
        case .array(let array): return array.reduce(2) { $0 + 1 + jsonSizeBound(of: $1) }
        case .object(let object): return jsonSizeBound(of: object)
        }
    }
}
