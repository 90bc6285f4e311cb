import Foundation
import OnboardMetricsSDK

/// One database's sessions for one grouping, in a slim form a report decodes in a few tens of
/// nanoseconds an event: the sessions after they are cut and their clocks corrected, strings and
/// properties objects numbered once for the file, times and `seq` as varint deltas, no event ids
/// and no sent or received times (about 16 bytes an event with the generated data, where a trace holds 63). A report reads
/// it instead of every trace from PostgreSQL, after bringing it up to date from the traces written
/// since (``TraceChanges``, the watermark ``SessionCache`` uses); ``SessionFileStore`` keeps it on
/// disk. docs/TRACES.md has the measurements that chose it.
///
/// Like ``SessionCache`` it holds what ``TraceReader`` emits with no `--since` / `--until` and no
/// person links; those are applied as a report reads. A slim event has no id to bound by: each
/// record keeps the times of its trace's first and last event ids, so a bound leaves a trace whole
/// or out, and a trace with events on both sides is read from PostgreSQL.
///
/// A file is: a head (``head``), the grouping and the watermark, the kinds' names, the irregular
/// sessions, the strings, the objects, then one record per trace —
/// `[session id: 16 bytes][varint: bytes after this][varint events][varint first and last event
/// ids' milliseconds][varint sessions][sessions…]` — and a tail (``tail``), so a torn file is
/// known. While it is brought up to date, the records read from disk stay where they are (mapped),
/// the changed traces' ids are set aside and their new records are written to `added`.
struct SessionFile: Sendable {
    /// The head names the rules the sessions were cut and corrected by: a file of earlier rules (2:
    /// the session's clock chosen by its messages, issue 59) is foreign, and written again.
    static let head = Array("OMSLIM2\n".utf8)
    static let tail = Array("OMSEND1\n".utf8)
    /// The kinds in the order their numbers are written; a file with another list is read again.
    static let kinds = EventKind.allCases.map { $0 }

    /// A kind's number: its place in ``kinds``. A switch, not a dictionary: hashing the kind hashed
    /// its name, for every event of a build (`perf`). `SessionFileTests` checks it against ``kinds``.
    static func number(of kind: EventKind) -> UInt8 {
        switch kind {
        case .sessionStarted: 0
        case .stepViewed: 1
        case .stepCompleted: 2
        case .stepSkipped: 3
        case .stepBack: 4
        case .highlightShown: 5
        case .highlightDismissed: 6
        case .featureUsed: 7
        case .flowCompleted: 8
        case .flowAbandoned: 9
        case .experimentExposure: 10
        case .custom: 11
        }
    }

    /// The grouping the sessions were cut with.
    let closeAfter: Int64
    let closeFinishedAfter: Int64?
    /// The xmin of the snapshot read last; nil before the first read.
    var watermark: UInt64?
    /// The server's system identifier and the database's oid that read was from.
    var database: String?
    /// Traces whose event ids are not all UUIDv7: while any is kept, reports read the events.
    var irregular: Set<UUID> = []
    /// Where the stored strings are in `stored` (each a varint length and its bytes), numbered
    /// from 1 (0 is none), and the strings added since: numbers past the stored ones.
    var storedStrings: [Int] = []
    private(set) var addedStrings: [String] = []
    /// Where the stored properties and context objects are (each as ``SlimWriter/json(_:)`` writes
    /// an object), numbered from 1 (0 is the empty object), and those added since.
    var storedObjects: [Int] = []
    private(set) var addedObjects: [[String: JSONValue]] = []
    /// Where the stored tables' entries are in `stored`: written back as they are.
    var storedStringBytes: Range<Int> = 0..<0
    var storedObjectBytes: Range<Int> = 0..<0
    /// The file's bytes as read (mapped), and where its records are in them.
    var stored = Data()
    var storedRecords: Range<Int> = 0..<0
    /// The stored records' events, and their event ids' extremes (milliseconds of the UUIDv7s).
    var storedSummary = Summary()
    /// Records of the traces read since the file was loaded, and their events.
    private(set) var added: [UInt8] = []
    var addedSummary = Summary()
    /// The traces read or removed since the file was loaded: their stored records are dead.
    private(set) var changed: Set<UUID> = []
    /// The traces written since the watermark that were left unread (``defers(traces:events:)``):
    /// the report reads them from PostgreSQL; the file is not written.
    private(set) var deferred: [UUID] = []
    /// Numbers of strings and objects, for encoding; filled from the tables when first needed.
    private var stringNumbers: [ExactString: UInt32] = [:]
    private var objectNumbers: [ExactBytes: UInt32] = [:]
    /// A record's body as it is encoded (its room kept from one trace to the next).
    private var scratch = SlimWriter()
    private var numbered = false
    /// The numbers of the values met last: a trace's decoded events share their strings' and
    /// objects' storage, so most lookups end here, without hashing (hashing every string was
    /// a fifth of a first build's time, `perf`).
    private var recentStrings = RecentValues<String>()
    private var recentObjects = RecentValues<[String: JSONValue]>()
    /// The tables' entries when the file was last built from every trace.
    var builtEntries = 0

    /// Events and the extremes of their ids (milliseconds of the UUIDv7 time).
    struct Summary: Sendable, Equatable {
        var events = 0
        var firstMilliseconds = UInt64.max
        var lastMilliseconds: UInt64 = 0

        mutating func add(events count: Int, first: UInt64, last: UInt64) {
            events += count
            firstMilliseconds = min(firstMilliseconds, first)
            lastMilliseconds = max(lastMilliseconds, last)
        }

        mutating func add(_ other: Summary) {
            add(events: other.events, first: other.firstMilliseconds, last: other.lastMilliseconds)
        }
    }

    /// An empty file for a grouping.
    init(closeAfter: Int64, closeFinishedAfter: Int64?) {
        self.closeAfter = closeAfter
        self.closeFinishedAfter = closeFinishedAfter
    }

    /// Whether anything changed since the file was loaded: a trace was read or removed, or it was
    /// read whole (``isWorthWriting`` says whether to write it). With nothing new the watermark it
    /// holds still holds (nothing was written from it on), so a report that finds nothing new
    /// writes nothing.
    var isChanged: Bool { touched || (loadedWatermark == nil && watermark != nil) }

    /// The watermark the file had when it was read from disk (nil for a file made here).
    var loadedWatermark: UInt64?
    /// Whether a trace was read or removed since the file was loaded (`changed` stays empty for a
    /// file of no records).
    private var touched = false

    /// Whether the changes read since the file was loaded are worth writing it again for: a new
    /// file always; else once the records added and set aside come to 2 % of the stored ones'
    /// bytes. Below that the next report reads the same few traces again from the file's
    /// watermark (what it would have read anyway, and removals are never forgotten), which costs
    /// less than writing the whole file: after 1 % more events at 7.07M, the rewrite of 97 MB was
    /// most of the first report's extra time.
    var isWorthWriting: Bool {
        // Its watermark would claim traces it does not hold.
        guard isChanged, deferred.isEmpty else { return false }
        guard loadedWatermark != nil, !storedRecords.isEmpty else { return true }
        return reachesRewrite(addedBytes: added.count, changedRecords: changed.count)
    }

    /// The 2 % rule of ``isWorthWriting`` and ``defers(traces:events:)``: whether records of
    /// `addedBytes` bytes, and `changedRecords` stored records set aside (each counted as
    /// ``changedRecordBytes``), come to a fiftieth of the stored records' bytes.
    private func reachesRewrite(addedBytes: Int, changedRecords: Int) -> Bool {
        (addedBytes + Self.changedRecordBytes * changedRecords) * 50 >= storedRecords.count
    }

    /// What a stored record set aside counts for in the 2 % rule: its id in `changed`, and a
    /// record the next whole build would drop.
    private static let changedRecordBytes = 64

    /// The events and their ids' extremes over the live records: exact for a file as loaded; while
    /// it is brought up to date the removed records' share is still counted (the extremes are then
    /// wider than the events', never narrower). ``SessionFileStore`` writes it exact.
    var summary: Summary {
        var summary = storedSummary
        summary.add(addedSummary)
        return summary
    }
}

extension SessionFile: TraceKeeper {
    var events: Int { summary.events }

    mutating func restart() {
        self = SessionFile(closeAfter: closeAfter, closeFinishedAfter: closeFinishedAfter)
    }

    mutating func remove(_ sessionID: UUID) {
        touched = true
        // Only stored records can be dead: a first build sets nothing aside.
        if !storedRecords.isEmpty { changed.insert(sessionID) }
        irregular.remove(sessionID)
    }

    mutating func put(
        _ sessionID: UUID, sessions: [RecordedSession], events: Int, irregular isIrregular: Bool, firstEventID: UUID,
        lastEventID: UUID
    ) throws -> Bool {
        // Numbers are 32-bit in the lookups: a file with that many strings or objects takes no
        // more (the report reads PostgreSQL; no database here comes near).
        guard storedStrings.count + addedStrings.count < Int(UInt32.max) - 1_000_000,
            storedObjects.count + addedObjects.count < Int(UInt32.max) - 1_000_000
        else { return false }
        remove(sessionID)
        if isIrregular { irregular.insert(sessionID) }
        let first = firstEventID.leadingMilliseconds
        let last = lastEventID.leadingMilliseconds
        encode(sessionID, sessions: sessions, events: events, first: first, last: last)
        addedSummary.add(events: events, first: first, last: last)
        return true
    }

    /// Leaves the traces written since the watermark unread when keeping them would not make the
    /// file worth writing (``isWorthWriting``, their records' bytes taken as ``bytesAnEvent`` an
    /// event): encoding them into the file and decoding them back took one thread 10 ms of a
    /// report after 1 % more events at 1.8M, while the other read the file (`perf record`).
    func defers(traces: Int, events: Int) -> Bool {
        guard let most = deferrableTraces, traces <= most else { return false }
        return !reachesRewrite(
            addedBytes: added.count + Self.bytesAnEvent * events, changedRecords: changed.count + traces)
    }

    /// At most as many traces as would, at 64 bytes each, reach the 2 %; none for a file not read
    /// from disk, or one with irregular sessions (a report does not read it).
    var deferrableTraces: Int? {
        guard loadedWatermark != nil, !storedRecords.isEmpty, irregular.isEmpty else { return nil }
        return storedRecords.count / (Self.changedRecordBytes * 50)
    }

    /// What a record takes an event, about (16.3 bytes with the generated data).
    static let bytesAnEvent = 17

    mutating func deferRead(of sessionIDs: [UUID]) {
        for sessionID in sessionIDs { remove(sessionID) }
        deferred += sessionIDs
    }

    mutating func mark(watermark: UInt64, database: String) {
        self.watermark = watermark
        self.database = database
    }

    /// Room for a first build's records at once, at 17 bytes an event (16.3 with the generated
    /// data): grown by doubling, the records' array and its copy had a first report at 10.6M
    /// events peak at 377 MB. Data with more in it grows from there as before.
    mutating func expect(events: Int) {
        guard storedRecords.isEmpty else { return }
        added.reserveCapacity(min(events, Int.max / 32) * Self.bytesAnEvent + 4_096)
    }
}

extension SessionFile {
    /// Appends one trace's record to `added`.
    private mutating func encode(
        _ sessionID: UUID, sessions: [RecordedSession], events: Int, first: UInt64, last: UInt64
    ) {
        numberTablesIfNeeded()
        var body = SlimWriter()
        swap(&body, &scratch)
        defer { swap(&body, &scratch) }
        body.bytes.removeAll(keepingCapacity: true)
        body.varint(UInt64(events))
        body.varint(first)
        body.varint(last)
        body.varint(UInt64(sessions.count))
        for session in sessions {
            body.uuid(session.sessionID)
            body.varint(number(session.userID))
            body.varint(number(session.flowID))
            body.optional(session.flowVersion)
            body.varint(number(session.context))
            body.varint(UInt64(session.events.count))
            var time: Int64 = 0
            var seq = 0
            for event in session.events {
                body.bytes.append(Self.number(of: event.kind))
                body.varint(number(event.flowID))
                body.optional(event.flowVersion)
                body.varint(number(event.stepID))
                body.varint(number(event.name))
                body.zigzag(event.time &- time)
                body.zigzag(Int64(event.seq) &- Int64(seq))
                body.varint(number(event.properties))
                time = event.time
                seq = event.seq
            }
        }
        var record = SlimWriter()
        record.uuid(sessionID)
        record.varint(UInt64(body.bytes.count))
        added += record.bytes
        added += body.bytes
    }

    /// How many of the stored strings and objects a refresh looks up before it adds one: the
    /// first ones are the kinds' flows, steps and names, met first; the rest are mostly user ids,
    /// and looking up every one (a million at 10M events) would cost a refresh more than it saves.
    /// A string past these that comes back is stored again; ``wasteful`` says when to rebuild.
    /// 65,536 took 10 ms of each report after 1 % more events at 1.77M (`perf`: the dictionary's
    /// inserts), where the 1,500 sessions read brought back a few hundred user ids.
    static let numberedStored = 4_096

    /// How many duplicated strings and objects a file may gather past twice those of its last
    /// whole build before ``wasteful`` says to build it again (it was ``numberedStored``'s old
    /// 65,536; lowering that must not make small files rebuild sooner).
    static let wasteAllowed = 65_536

    /// The lookups of the first stored strings and objects, once a trace is to be written: a
    /// report that finds nothing new never builds them. Strings are told apart by their bytes
    /// (`==` holds canonically equivalent text equal, and a report must give back the bytes it
    /// was given).
    private mutating func numberTablesIfNeeded() {
        guard !numbered else { return }
        numbered = true
        stored.withUnsafeBytes { bytes in
            for (index, offset) in storedStrings.prefix(Self.numberedStored).enumerated() {
                var reader = SlimReader(bytes, from: offset)
                guard let text = try? reader.string() else { continue }
                stringNumbers[ExactString(text)] = UInt32(index + 1)
            }
            for (index, offset) in storedObjects.prefix(Self.numberedStored).enumerated() {
                var reader = SlimReader(bytes, from: offset)
                guard (try? reader.json()) != nil else { continue }
                objectNumbers[ExactBytes(Array(bytes[offset..<reader.offset]))] = UInt32(index + 1)
            }
        }
    }

    private mutating func number(_ text: String?) -> UInt64 {
        guard let text else { return 0 }
        if let known = recentStrings.number(of: text) { return UInt64(known) }
        let number = lookUp(text)
        recentStrings.remember(text, number)
        return UInt64(number)
    }

    private mutating func lookUp(_ text: String) -> UInt32 {
        let key = ExactString(text)
        if let known = stringNumbers[key] { return known }
        addedStrings.append(text)
        let number = UInt32(truncatingIfNeeded: storedStrings.count + addedStrings.count)
        stringNumbers[key] = number
        return number
    }

    private mutating func number(_ object: [String: JSONValue]) -> UInt64 {
        guard !object.isEmpty else { return 0 }
        if let known = recentObjects.number(of: object) { return UInt64(known) }
        let key = ExactBytes(Self.bytes(of: object))
        let number: UInt32
        if let known = objectNumbers[key] {
            number = known
        } else {
            addedObjects.append(object)
            number = UInt32(truncatingIfNeeded: storedObjects.count + addedObjects.count)
            objectNumbers[key] = number
        }
        recentObjects.remember(object, number)
        return UInt64(number)
    }

    /// Drops what only encoding needs (the lookups, the recent values, the writer's room) once
    /// the file is brought up to date: a report then only decodes, and at 10.6M events the
    /// lookups of a first build held tens of MB through it.
    mutating func forgetNumbering() {
        stringNumbers = [:]
        objectNumbers = [:]
        recentStrings = RecentValues()
        recentObjects = RecentValues()
        scratch = SlimWriter()
        numbered = false
    }

    /// Whether the tables hold more than twice the entries they held when the file was last
    /// built whole (strings stored again, or no longer used): the store then reads every trace
    /// again.
    var wasteful: Bool {
        let entries = storedStrings.count + addedStrings.count + storedObjects.count + addedObjects.count
        return entries > 2 * builtEntries + Self.wasteAllowed
    }

    /// What a record says before its sessions.
    struct RecordHead {
        var sessionID: UUID
        /// Where the record ends in the bytes read.
        var end: Int
        var events: Int
        var first: UInt64
        var last: UInt64
    }

    /// Reads a record's head: every walk over the records (shares, reading, writing) reads it
    /// here, with the same checks.
    /// - Throws: ``SessionFileError`` for a head past the record's end or the bytes'.
    static func recordHead(_ reader: inout SlimReader) throws -> RecordHead {
        let sessionID = try reader.uuid()
        let length = try reader.number(below: reader.end - reader.offset + 1)
        let end = reader.offset + length
        let events = try reader.number(below: length / 8 + 1)
        let first = try reader.varint()
        let last = try reader.varint()
        // A record's head lies within it (a run of zeros, as a crash before the disk had the
        // data could leave, reads as records of no length).
        guard reader.offset < end else { throw SessionFileError.malformed("a record shorter than its head") }
        return RecordHead(sessionID: sessionID, end: end, events: events, first: first, last: last)
    }

    static func bytes(of object: [String: JSONValue]) -> [UInt8] {
        var writer = SlimWriter()
        writer.json(.object(object))
        return writer.bytes
    }
}

/// Bytes as a dictionary key, hashed as ``ExactString`` hashes (one word to the hasher).
struct ExactBytes: Hashable, Sendable {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func hash(into hasher: inout Hasher) { bytes.withUnsafeBytes { ExactString.combine($0, into: &hasher) } }
}

/// A string as a dictionary key told apart by its bytes, not by canonical equivalence.
struct ExactString: Hashable, Sendable {
    let text: String

    init(_ text: String) { self.text = text }

    static func == (one: ExactString, other: ExactString) -> Bool { ByteIdentity.same(one.text, other.text) }

    func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { Self.combine(UnsafeRawBufferPointer($0), into: &hasher) }
    }

    /// The bytes to the (seeded) hasher eight at a time: `Hasher.combine(bytes:)` took a call per
    /// byte of these short strings (`perf`), and an unseeded hash of our own would let values an
    /// app sends collide on purpose.
    static func combine(_ bytes: UnsafeRawBufferPointer, into hasher: inout Hasher) {
        var offset = 0
        while bytes.count - offset >= 8 {
            hasher.combine(bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        var tail = UInt64(bytes.count)
        while offset < bytes.count {
            tail = tail << 8 | UInt64(bytes[offset])
            offset += 1
        }
        hasher.combine(tail)
    }
}

/// A few values remembered with their numbers, found by their storage: two values whose bits are
/// the same hold the same bytes (a small string is its bytes; a large string or a dictionary is a
/// reference to its storage, which the remembered value keeps alive, so its address is not
/// reused). Direct-mapped: a new value takes its slot.
struct RecentValues<Value: Sendable>: Sendable {
    private var values: [Value?] = Array(repeating: nil, count: 256)
    private var numbers: [UInt32] = Array(repeating: 0, count: 256)

    @inline(__always)
    private static func bits(of value: Value) -> (UInt64, UInt64) {
        withUnsafeBytes(of: value) { raw in
            (raw.load(as: UInt64.self), raw.count >= 16 ? raw.load(fromByteOffset: 8, as: UInt64.self) : 0)
        }
    }

    @inline(__always)
    private static func slot(_ bits: (UInt64, UInt64)) -> Int {
        Int(truncatingIfNeeded: ((bits.0 ^ (bits.1 &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9) >> 56)
    }

    @inline(__always)
    func number(of value: Value) -> UInt32? {
        let bits = Self.bits(of: value)
        let slot = Self.slot(bits)
        guard let known = values[slot], Self.bits(of: known) == bits else { return nil }
        return numbers[slot]
    }

    @inline(__always)
    mutating func remember(_ value: Value, _ number: UInt32) {
        let slot = Self.slot(Self.bits(of: value))
        values[slot] = value
        numbers[slot] = number
    }
}
