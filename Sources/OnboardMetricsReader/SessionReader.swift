import Foundation
import OnboardMetricsPostgres
import OnboardMetricsSDK
import OnboardMetricsStore

/// Streams recorded sessions out of PostgreSQL for replay: one binary `COPY ... TO STDOUT` of the
/// events in event-id order (UUIDv7, so the client's time order), grouped into complete sessions
/// by a ``SessionGrouper``. Memory is bounded by the sessions open at once, not by the events read.
///
/// `COPY` takes no parameters, so bounds are written into the statement as literals made only
/// from typed values (a UUIDv7 floor, bucket numbers; ``SessionReader/boundLiteral(_:)``): no
/// session settings or custom functions, which a Citus coordinator's workers would not see.
public struct SessionReader: Sendable {
    /// Events created at or after this instant (by event id); `nil` for no lower bound.
    public var since: Date?
    /// Events created before this instant; `nil` for no upper bound.
    public var until: Date?
    /// A session closes this long (in stream time) after its last event; make it cover the
    /// longest gap a report looks at (the conversion or discovery window).
    public var closeAfter: TimeInterval
    /// When set, a session whose flow completed or was abandoned closes this long after its last
    /// event instead: for reports that ignore what follows the end of a flow (funnel,
    /// conformance), so memory holds only the sessions still under way. Leave it `nil` for reports
    /// that look past the flow's end (discovery, ad-hoc funnels).
    public var closeFinishedAfter: TimeInterval?
    /// When set, only sessions of these ``SessionBucket``s are read (a shard's own buckets, or a
    /// share of one server's for a parallel read); `nil` reads every session.
    public var buckets: [Int]?
    /// When set, these tables are read instead of `events`: the shard tables of `events` on one
    /// Citus worker (``CitusPlacements``), each holding whole sessions. Quoted SQL identifiers the
    /// tool made from catalog names, never user text (they go into the statement as they are).
    package var tables: [String]?
    /// Who is one person (``PersonLinks``, resolved): a session's user is its person's id.
    public var people: PersonLinks?
    /// When set, only the cohort's sessions (unit session) or people's sessions (unit user: with
    /// ``people`` set, so that a user is a person) are handed out.
    public var cohort: Cohort?
    /// Where the sessions are read from: the session traces when they can be, by default.
    public var source = SessionSource.automatic

    /// A reader of every event in `[since, until)`.
    public init(
        since: Date? = nil, until: Date? = nil, closeAfter: TimeInterval = 8 * 86_400,
        closeFinishedAfter: TimeInterval? = nil
    ) {
        self.since = since
        self.until = until
        self.closeAfter = closeAfter
        self.closeFinishedAfter = closeFinishedAfter
    }

    /// What a read did.
    public struct Statistics: Sendable, Hashable, Codable {
        /// Events read.
        public var events = 0
        /// Sessions handed out.
        public var sessions = 0
        /// Most sessions held open at once.
        public var peakOpenSessions = 0
    }

    /// The statements the reader runs, one after another: one over `events`, or one per table of
    /// ``tables`` (a Citus worker's shards of `events`). A shard holds whole sessions, so each is
    /// read in its own event-id order and its sessions are finished before the next: one
    /// statement over all of a worker's shards made the worker merge 32 ordered scans, at 1.7–3.1×
    /// one server's cost an event (BENCHMARKS.md, issue 35).
    public var copyStatements: [String] {
        var conditions: [String] = []
        if let since { conditions.append("event_id >= \(Self.boundLiteral(since))") }
        if let until { conditions.append("event_id < \(Self.boundLiteral(until))") }
        if let buckets { conditions.append(Self.bucketCondition(buckets)) }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        return (tables ?? ["events"]).map {
            "COPY (SELECT \(Self.columns) FROM \($0)\(filter) ORDER BY event_id) TO STDOUT (FORMAT binary)"
        }
    }

    /// The columns replay reads; properties only where they are not empty.
    public static let columns =
        "event_id, session_id, user_id, seq, kind, flow_id, flow_version, step_id, name, occurred_at, sent_at, received_at, NULLIF(properties, '{}'::jsonb)"

    /// Reads the sessions and hands each, complete, to `body`.
    /// - Parameters:
    ///   - connection: the database.
    ///   - progress: called every 100,000 events with the count so far.
    ///   - body: receives each session once it is complete.
    /// - Returns: counts of what was read.
    /// - Throws: `PostgresError`, or what `body` throws.
    @discardableResult
    public func read(
        on connection: PostgresConnection, progress: (Int) -> Void = { _ in }, _ body: (RecordedSession) throws -> Void
    ) throws -> Statistics {
        // A read of given tables (a Citus worker's shards) has no traces beside it.
        if source != .events, tables == nil,
            let statistics = try TraceReader(reader: self).read(on: connection, progress: progress, body)
        {
            return statistics
        }
        var grouper = SessionGrouper(
            closeAfter: DurationText.microseconds(closeAfter),
            closeFinishedAfter: closeFinishedAfter.map { DurationText.microseconds($0) })
        var statistics = Statistics()
        var decoder = RowDecoder()
        func emit(_ session: RecordedSession) throws {
            guard cohort?.admits(session) ?? true else { return }
            statistics.sessions += 1
            try body(session)
        }
        for statement in copyStatements {
            try connection.copyOut(statement) { row in
                guard let sessionID = try row.uuid(1) else {
                    throw PostgresError(.invalidValue, "an events row has no session_id")
                }
                let (streamTime, event, offset) = try decoder.decode(row)
                try grouper.add(
                    sessionID: sessionID,
                    userID: { people.map { $0.person(of: row.text(2) ?? "") } ?? row.text(2) ?? "" },
                    streamTime: streamTime, event: consume event, clockOffset: offset, emit: emit)
                statistics.events += 1
                if statistics.events % 100_000 == 0 { progress(statistics.events) }
            }
            statistics.peakOpenSessions = max(statistics.peakOpenSessions, grouper.peakOpenCount)
            // Whole sessions per statement: finish them before the next table's.
            try grouper.finish(emit)
        }
        return statistics
    }
}

/// Decodes rows of ``SessionReader/columns`` and the events of session traces (one decoder for
/// both, so both read paths make the same values), reusing the strings that repeat (flows,
/// steps, names) so most rows allocate nothing.
struct RowDecoder {
    private var flows = StringInterner()
    private var steps = StringInterner()
    private var names = StringInterner()
    private var propertyObjects = PropertiesInterner()

    mutating func decode(_ row: BinaryCopyRow) throws -> (Int64, RecordedEvent, Int64?) {
        guard let eventID = try row.uuid(0), let seq = try row.int32(3), let kind = row.rawBytes(4),
            let occurred = try row.timestampMicroseconds(9)
        else { throw PostgresError(.invalidValue, "an events row lacks a required column") }
        // jsonb's binary form: a version byte, then the JSON text.
        let properties = row.rawBytes(12).flatMap { $0.count > 1 ? UnsafeRawBufferPointer(rebasing: $0[1...]) : nil }
        return try decode(
            eventID: eventID, seq: seq, kind: kind, flowID: row.rawBytes(5), flowVersion: try row.int32(6),
            stepID: row.rawBytes(7), name: row.rawBytes(8), occurred: occurred, sent: try row.timestampMicroseconds(10),
            received: try row.timestampMicroseconds(11), properties: properties, source: "an events row")
    }

    /// One event's columns (as an events row and a trace both hold them) as the grouper takes
    /// them: stream time, the event, and the clock offset. `source` names where they came from in
    /// an error.
    mutating func decode(
        eventID: UUID, seq: Int32, kind kindBytes: UnsafeRawBufferPointer, flowID: UnsafeRawBufferPointer?,
        flowVersion: Int32?, stepID: UnsafeRawBufferPointer?, name: UnsafeRawBufferPointer?, occurred: Int64,
        sent: Int64?, received: Int64?, properties raw: UnsafeRawBufferPointer?, source: String
    ) throws -> (Int64, RecordedEvent, Int64?) {
        let kind = try Self.kind(kindBytes, source: source)
        let properties = try self.properties(raw)
        return try Self.event(
            eventID: eventID, seq: seq, kind: kind, flowID: flows.string(flowID), flowVersion: flowVersion,
            stepID: steps.string(stepID), name: names.string(name), occurred: occurred, sent: sent,
            received: received, properties: properties)
    }

    /// The kind a `kind` column spells; `source` names where it came from in the error.
    static func kind(_ bytes: UnsafeRawBufferPointer, source: String) throws -> EventKind {
        guard let kind = EventKind(utf8: bytes) else {
            throw PostgresError(
                .invalidValue, "\(source) has the unknown kind '\(String(decoding: bytes, as: UTF8.self))'")
        }
        return kind
    }

    /// The properties a `properties` column's JSON text holds (`nil`: none).
    mutating func properties(_ raw: UnsafeRawBufferPointer?) throws -> [String: JSONValue] {
        guard let raw, !raw.isEmpty else { return [:] }
        return try propertyObjects.object(raw)
    }

    /// The most microseconds an `occurred_at` may lie from 2000-01-01, either way (about 73,000
    /// years): PostgreSQL takes dates up to the year 294,276 and `infinity`, where shifting a
    /// time to 1970 and by a clock offset, adding a closing time, or subtracting one event's time
    /// from another's (a window, a duration) would overflow. At 2^61 every difference fits.
    static let farthestOccurred = Int64(1) << 61

    /// The event of columns already turned into values: what both read paths build.
    /// - Throws: `PostgresError` `.invalidValue` for an `occurred_at` beyond ``farthestOccurred``.
    static func event(
        eventID: UUID, seq: Int32, kind: EventKind, flowID: String?, flowVersion: Int32?, stepID: String?,
        name: String?, occurred: Int64, sent: Int64?, received: Int64?, properties: [String: JSONValue]
    ) throws -> (Int64, RecordedEvent, Int64?) {
        guard occurred.magnitude <= UInt64(farthestOccurred) else {
            throw PostgresError(
                .invalidValue,
                "event \(eventID.uuidString.lowercased()) has an occurred_at too far from 2000 to replay (infinity, or more than 73,000 years)"
            )
        }
        // The clock offset (received_at - sent_at), when plausible, is applied per session by the grouper.
        let offset = ClockCorrection.offset(occurred: occurred, sent: sent, received: received)
        let unixTime = occurred + postgresEpochOffsetMicroseconds
        let streamTime = eventID.version7Milliseconds.map { $0 * 1000 } ?? unixTime
        let event = RecordedEvent(
            kind: kind, flowID: flowID, flowVersion: flowVersion.map(Int.init), stepID: stepID, name: name,
            time: unixTime, seq: Int(seq), properties: properties)
        return (streamTime, event, offset)
    }
}

/// Returns the same `String` for the same bytes, for the few values that repeat on every row
/// (flow ids, step ids): comparing bytes is cheaper than building and hashing a new string.
struct StringInterner {
    private var entries: [(bytes: [UInt8], string: String)] = []
    private var last = -1

    mutating func string(_ bytes: UnsafeRawBufferPointer?) -> String? {
        guard let bytes else { return nil }
        if last >= 0, bytes.equals(entries[last].bytes) { return entries[last].string }
        for index in entries.indices
        where bytes.equals(entries[index].bytes) {
            last = index
            return entries[index].string
        }
        let string = String(decoding: bytes, as: UTF8.self)
        // Beyond a few hundred distinct values a linear search costs more than it saves.
        if entries.count < 256 {
            entries.append((Array(bytes), string))
            last = entries.count - 1
        }
        return string
    }
}

/// Returns one shared dictionary for JSON objects that repeat byte for byte (session contexts,
/// variants, dismissal reasons), so held sessions do not each carry a copy.
struct PropertiesInterner {
    private var buckets: [UInt64: [(bytes: [UInt8], object: [String: JSONValue])]] = [:]
    private var count = 0

    mutating func object(_ json: UnsafeRawBufferPointer) throws -> [String: JSONValue] {
        let hash = json.contentHash
        if let bucket = buckets[hash] {
            for entry in bucket where json.equals(entry.bytes) {
                return entry.object
            }
        }
        var cursor = JSONCursor(json.bindMemory(to: UInt8.self))
        let object = try cursor.object()
        // Objects that never repeat (ids, free text) would only fill the table: stop at 4,096.
        if count < 4_096 {
            buckets[hash, default: []].append((Array(json), object))
            count += 1
        }
        return object
    }
}

extension EventKind {
    /// The kinds by the length of their raw value: at most three share one, so a lookup
    /// compares one or two strings, not up to twelve.
    private static let byLength: [[(bytes: [UInt8], kind: EventKind)]] = {
        var byLength = [[(bytes: [UInt8], kind: EventKind)]](repeating: [], count: 20)
        for kind in allCases {
            let bytes = Array(kind.rawValue.utf8)
            if bytes.count >= byLength.count {
                byLength += Array(repeating: [], count: bytes.count + 1 - byLength.count)
            }
            byLength[bytes.count].append((bytes, kind))
        }
        return byLength
    }()

    /// The kind whose raw value these UTF-8 bytes spell.
    init?(utf8 bytes: UnsafeRawBufferPointer) {
        guard bytes.count < Self.byLength.count else { return nil }
        for entry in Self.byLength[bytes.count] where bytes.equals(entry.bytes) {
            self = entry.kind
            return
        }
        return nil
    }
}
