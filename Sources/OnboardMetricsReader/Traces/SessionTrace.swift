import Foundation

/// The compact form of one session's events rows (`session_traces.trace`): the one encoder and
/// decoder every writer and reader of traces uses.
///
/// A trace keeps the columns of ``SessionReader/columns`` raw, in event-id order — not sessions
/// as grouped — so decoding runs them through the same ``SessionGrouper`` as the events stream
/// and `--since/--until` still apply per event. Layout (version 1), integers as LEB128 varints
/// (signed ones zigzag-coded):
///
///     version byte 1
///     string count, then each string: length, UTF-8 bytes   (user ids, kinds, flows, steps,
///                                                            names, properties' JSON text)
///     event count, then each event:
///       event id (16 bytes)
///       flags (1: sent_at, 2: received_at, 4: flow_version present)
///       user, kind, flow, step, name, properties: string number + 1, 0 for NULL
///       seq; flow_version if present
///       occurred_at - previous event's occurred_at (the first: itself), microseconds since 2000
///       sent_at - occurred_at, received_at - occurred_at, when present
package enum SessionTrace {
    /// One events row, owned (what the encoder takes and ``TraceCursor/row`` gives back).
    package struct Row: Hashable, Sendable {
        package var eventID: UUID
        package var userID: [UInt8]?
        package var seq: Int32
        package var kind: [UInt8]
        package var flowID: [UInt8]?
        package var flowVersion: Int32?
        package var stepID: [UInt8]?
        package var name: [UInt8]?
        /// `occurred_at`, microseconds since 2000-01-01 (PostgreSQL's epoch).
        package var occurred: Int64
        package var sent: Int64?
        package var received: Int64?
        /// The properties' JSON text; `nil` when they are empty (`{}`).
        package var properties: [UInt8]?

        package init(
            eventID: UUID, userID: [UInt8]?, seq: Int32, kind: [UInt8], flowID: [UInt8]?, flowVersion: Int32?,
            stepID: [UInt8]?, name: [UInt8]?, occurred: Int64, sent: Int64?, received: Int64?, properties: [UInt8]?
        ) {
            self.eventID = eventID
            self.userID = userID
            self.seq = seq
            self.kind = kind
            self.flowID = flowID
            self.flowVersion = flowVersion
            self.stepID = stepID
            self.name = name
            self.occurred = occurred
            self.sent = sent
            self.received = received
            self.properties = properties
        }
    }

    static let version: UInt8 = 1

    /// Encodes rows, given in event-id order. The same rows always give the same bytes (strings
    /// are numbered in order of first use), so a trace can be checked by comparing bytes.
    package static func encode(_ rows: [Row]) -> [UInt8] {
        var encoder = Encoder()
        for row in rows { encoder.append(row) }
        return encoder.trace
    }

    /// Decodes a whole trace into owned rows (tests, `funnel verify`); readers use ``TraceCursor``.
    package static func decode(_ trace: [UInt8]) throws -> [Row] {
        try trace.withUnsafeBytes { bytes in
            var cursor = try TraceCursor(bytes)
            var rows: [Row] = []
            while try cursor.next() { rows.append(cursor.row) }
            return rows
        }
    }
}

/// A trace that cannot be read: malformed (rebuild them with `funnel verify --rebuild`), or
/// traces asked for (``SessionSource/traces``) where they cannot be used.
public struct TraceError: Error, Sendable, CustomStringConvertible {
    /// What is wrong.
    public struct Code: Hashable, Sendable {
        let name: String
        /// A version this build does not read.
        package static let unknownVersion = Code(name: "unknownVersion")
        /// The bytes end inside a value, or a value is out of range.
        package static let truncated = Code(name: "truncated")
        /// A string number beyond the trace's strings.
        package static let badString = Code(name: "badString")
        /// Traces were asked for, but the database cannot give them.
        public static let unavailable = Code(name: "unavailable")
    }

    /// What is wrong.
    public var code: Code
    /// Why, for a person.
    public var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { "session traces (\(code.name)): \(message)" }
}

extension [UInt8] {
    mutating func appendVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        append(UInt8(value))
    }

    mutating func appendSigned(_ value: Int64) {
        appendVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }
}
