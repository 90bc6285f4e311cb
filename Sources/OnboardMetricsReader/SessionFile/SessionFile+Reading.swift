import Foundation
import OnboardMetricsSDK
import OnboardMetricsStore

extension SessionFile {
    /// A part of the live records read on one thread: a range of the stored records and one of
    /// those added, each from record to record.
    struct Share: Sendable {
        var stored: Range<Int>
        var added: Range<Int>
    }

    /// The live records in about `count` parts of equal bytes (fewer when there are fewer records).
    /// - Throws: ``SessionFileError`` for a record that runs past the end.
    func shares(_ count: Int) throws -> [Share] {
        let total = storedRecords.count + added.count
        let count = max(1, count)
        var cuts: [Int] = []  // positions in the stored records, then in `added` past their count
        var next = 1
        func walk(_ bytes: UnsafeRawBufferPointer, range: Range<Int>, base: Int) throws {
            var reader = SlimReader(
                UnsafeRawBufferPointer(rebasing: bytes[..<range.upperBound]), from: range.lowerBound)
            while !reader.isAtEnd, next < count {
                let start = reader.offset
                if base + start - range.lowerBound >= total * next / count {
                    cuts.append(base + start - range.lowerBound)
                    next += 1
                    continue
                }
                reader.offset = try Self.recordHead(&reader).end
            }
        }
        try stored.withUnsafeBytes { try walk($0, range: storedRecords, base: 0) }
        try added.withUnsafeBytes { try walk($0, range: 0..<added.count, base: storedRecords.count) }
        let bounds = [0] + cuts + [total]
        return zip(bounds, bounds.dropFirst()).compactMap { start, end -> Share? in
            guard start < end else { return nil }
            let storedPart = min(start, storedRecords.count)..<min(end, storedRecords.count)
            let addedPart = max(start, storedRecords.count)..<max(end, storedRecords.count)
            return Share(
                stored: (storedRecords.lowerBound + storedPart.lowerBound)..<(storedRecords.lowerBound
                    + storedPart.upperBound),
                added: (addedPart.lowerBound - storedRecords.count)..<(addedPart.upperBound - storedRecords.count))
        }
    }

    /// The bounds of a read, as the milliseconds of ``SessionReader/boundFloor(_:)``'s UUIDv7s: an
    /// event is in them when its id's milliseconds are at least `since`'s and below `until`'s
    /// (a floor's bytes after its time are zero, and a UUIDv7's are not all zero).
    struct Bounds: Sendable {
        var since: UInt64?
        var until: UInt64?

        init(since: UUID?, until: UUID?) {
            self.since = since?.leadingMilliseconds
            self.until = until?.leadingMilliseconds
        }

        /// Where a trace whose event ids' times run from `first` to `last` stands.
        @inline(__always)
        func place(first: UInt64, last: UInt64) -> Place {
            if let since, last < since { return .outside }
            if let until, first >= until { return .outside }
            if let since, first < since { return .across }
            if let until, last >= until { return .across }
            return .inside
        }

        enum Place { case inside, outside, across }
    }

    /// Decodes one share's sessions into `consumer`, each user replaced by their person with
    /// `people` and kept only when `cohort` admits it (as a read of the traces applies them).
    /// A trace with events on both sides of a bound is not decoded: its sessions are cut from the
    /// events within the bounds, which the file does not have (a caller reads its trace instead).
    /// - Returns: the events decoded, and the traces across a bound.
    /// - Throws: ``SessionFileError`` for a record that does not decode; what the consumer threw.
    func read<Consumer: SessionConsumer>(
        _ share: Share, bounds: Bounds, people: PersonLinks?, cohort: Cohort?, keptStrings: Int = Tables.keptStrings,
        into consumer: inout Consumer
    ) throws -> (events: Int, across: [UUID]) {
        // A consumer that needs only events' classes reads them without events being built; the
        // cast back cannot fail (the same value), and were it to, the plain read below runs.
        if var classifying = consumer as? any ClassifyingSessionConsumer, classifying.readsClasses {
            let read = try readClassified(
                share, bounds: bounds, people: people, cohort: cohort, keptStrings: keptStrings, into: &classifying)
            if let classified = classifying as? Consumer {
                consumer = classified
                return read
            }
        }
        var buffer: [RecordedEvent] = []
        return try walk(share, bounds: bounds, keptStrings: keptStrings) { reader, tables in
            try Self.readRecord(
                &reader, tables: &tables, buffer: &buffer, people: people, cohort: cohort, into: &consumer)
        }
    }

    /// ``read(_:bounds:people:cohort:keptStrings:into:)`` for a consumer of classes.
    private func readClassified<Consumer: ClassifyingSessionConsumer>(
        _ share: Share, bounds: Bounds, people: PersonLinks?, cohort: Cohort?, keptStrings: Int,
        into consumer: inout Consumer
    ) throws -> (events: Int, across: [UUID]) {
        var buffer: [ClassifiedSession.Event] = []
        var classes = EventClassMemo()
        let readsUsers = consumer.readsUsers || cohort?.unit == .user
        return try walk(share, bounds: bounds, keptStrings: keptStrings) { reader, tables in
            try Self.readClassifiedRecord(
                &reader, tables: &tables, classes: &classes, buffer: &buffer, readsUsers: readsUsers, people: people,
                cohort: cohort, into: &consumer)
        }
    }

    /// Each live record of `share` within `bounds` through `record` (which reads its sessions),
    /// with one thread's tables; the records across a bound are set aside, those outside skipped.
    @inline(__always)
    private func walk(
        _ share: Share, bounds: Bounds, keptStrings: Int,
        record: (inout SlimReader, inout Tables) throws -> Void
    ) throws -> (events: Int, across: [UUID]) {
        try stored.withUnsafeBytes { (storedBytes: UnsafeRawBufferPointer) in
            try added.withUnsafeBytes { (addedBytes: UnsafeRawBufferPointer) in
                var tables = Tables(file: self, stored: storedBytes, keptStrings: keptStrings)
                let changedFilter = IDFilter(changed)
                var events = 0
                var across: [UUID] = []
                for (bytes, range, skipping) in [
                    (storedBytes, share.stored, true), (addedBytes, share.added, false),
                ] where !range.isEmpty {
                    var reader = SlimReader(
                        UnsafeRawBufferPointer(rebasing: bytes[..<range.upperBound]), from: range.lowerBound)
                    while !reader.isAtEnd {
                        let head = try Self.recordHead(&reader)
                        let end = head.end
                        if skipping, changedFilter.mayContain(head.sessionID), changed.contains(head.sessionID) {
                            reader.offset = end
                            continue
                        }
                        switch bounds.place(first: head.first, last: head.last) {
                        case .outside:
                            reader.offset = end
                            continue
                        case .across:
                            across.append(head.sessionID)
                            reader.offset = end
                            continue
                        case .inside:
                            events += head.events
                        }
                        try record(&reader, &tables)
                        guard reader.offset == end else {
                            throw SessionFileError.malformed("a record of another length")
                        }
                    }
                }
                return (events, across)
            }
        }
    }

    /// The largest time a file may hold, in microseconds from 1970 either way (about 36,500 years).
    static let timeLimit: Int64 = 1 << 60

    /// One session's head as stored: its id, the numbers of its user, flow and context, its
    /// flow's version and how many events follow.
    struct StoredSession {
        var sessionID: UUID
        var user: UInt64
        var flow: UInt64
        var version: Int?
        var context: UInt64
        var events: Int
    }

    /// One event as stored, its time and `seq` added up from the deltas.
    struct StoredEvent {
        var kind: Int
        var flow: UInt64
        var version: Int?
        var step: UInt64
        var name: UInt64
        var time: Int64
        var seq: Int32
        var properties: UInt64
    }

    /// The next session's head, its flow version and event count checked.
    @inline(__always)
    private static func sessionHead(_ reader: inout SlimReader) throws -> StoredSession {
        let sessionID = try reader.uuid()
        let user = try reader.varint()
        let flow = try reader.varint()
        let version = try Self.version(&reader)
        let context = try reader.varint()
        // An event takes at least 8 bytes (a kind and seven numbers): a count past what is left
        // is refused before room is made for it.
        let events = try reader.number(below: (reader.end - reader.offset) / 8 + 1)
        return StoredSession(
            sessionID: sessionID, user: user, flow: flow, version: version, context: context, events: events)
    }

    /// A flow version, within the 32 bits the events table holds.
    @inline(__always)
    private static func version(_ reader: inout SlimReader) throws -> Int? {
        let version = try reader.optional()
        guard version.map({ Int(Int32.min)...Int(Int32.max) ~= $0 }) ?? true else {
            throw SessionFileError.malformed("a flow version out of range")
        }
        return version
    }

    /// The next event of a session, `time` and `seq` its predecessor's (0 before the first).
    @inline(__always)
    private static func event(_ reader: inout SlimReader, time: inout Int64, seq: inout Int64) throws -> StoredEvent {
        let kind = Int(try reader.byte())
        guard kind < kinds.count else { throw SessionFileError.malformed("an unknown kind") }
        let flow = try reader.varint()
        let version = try Self.version(&reader)
        let step = try reader.varint()
        let name = try reader.varint()
        time &+= try reader.zigzag()
        seq &+= try reader.zigzag()
        // What the events table holds (`seq` and versions in 32 bits) and times within 2^60 µs
        // of 1970: a damaged file that still decodes must not hand the replay a value its
        // arithmetic overflows on (a file past them is read from the traces).
        guard time > -Self.timeLimit, time < Self.timeLimit, seq >= Int64(Int32.min), seq <= Int64(Int32.max)
        else { throw SessionFileError.malformed("a time or seq out of range") }
        let properties = try reader.varint()
        return StoredEvent(
            kind: kind, flow: flow, version: version, step: step, name: name, time: time,
            seq: Int32(truncatingIfNeeded: seq), properties: properties)
    }

    /// One record's sessions (after its id, length, events and times).
    @inline(__always)
    private static func readRecord<Consumer: SessionConsumer>(
        _ reader: inout SlimReader, tables: inout Tables, buffer events: inout [RecordedEvent], people: PersonLinks?,
        cohort: Cohort?, into consumer: inout Consumer
    ) throws {
        let sessions = try reader.number(below: reader.end - reader.offset + 1)
        for _ in 0..<sessions {
            let head = try Self.sessionHead(&reader)
            var user = try tables.string(head.user) ?? ""
            let flow = try tables.string(head.flow)
            let context = try tables.object(head.context)
            // The last session's array again, when the consumer kept no copy of it: no allocation
            // and no release of an array per session.
            events.removeAll(keepingCapacity: true)
            events.reserveCapacity(head.events)
            var time: Int64 = 0
            var seq: Int64 = 0
            for _ in 0..<head.events {
                let stored = try Self.event(&reader, time: &time, seq: &seq)
                events.append(
                    RecordedEvent(
                        kind: Self.kinds[stored.kind], flowID: try tables.string(stored.flow),
                        flowVersion: stored.version,
                        stepID: try tables.string(stored.step), name: try tables.string(stored.name), time: stored.time,
                        seq: Int(stored.seq), properties: try tables.object(stored.properties)))
            }
            if let people { user = people.person(of: user) }
            var session = RecordedSession(
                sessionID: head.sessionID, userID: user, flowID: flow, flowVersion: head.version, context: context,
                events: [])
            swap(&session.events, &events)
            if cohort?.admits(session) ?? true { try consumer.add(session) }
            swap(&session.events, &events)
        }
    }

    /// ``readRecord(_:tables:buffer:people:cohort:into:)`` for a consumer of classes: the same
    /// numbers checked, the strings and objects it does not need left undecoded.
    @inline(__always)
    private static func readClassifiedRecord<Consumer: ClassifyingSessionConsumer>(
        _ reader: inout SlimReader, tables: inout Tables, classes: inout EventClassMemo,
        buffer events: inout [ClassifiedSession.Event], readsUsers: Bool, people: PersonLinks?, cohort: Cohort?,
        into consumer: inout Consumer
    ) throws {
        let sessions = try reader.number(below: reader.end - reader.offset + 1)
        for _ in 0..<sessions {
            let head = try Self.sessionHead(&reader)
            try tables.check(string: head.user)
            let flow = try tables.string(head.flow)
            let context = try tables.object(head.context)
            events.removeAll(keepingCapacity: true)
            events.reserveCapacity(head.events)
            var time: Int64 = 0
            var seq: Int64 = 0
            for _ in 0..<head.events {
                let stored = try Self.event(&reader, time: &time, seq: &seq)
                let eventClass = try classes.value(
                    kind: stored.kind, flow: stored.flow, step: stored.step, name: stored.name,
                    properties: stored.properties
                ) {
                    consumer.eventClass(
                        kind: Self.kinds[stored.kind], flowID: try tables.string(stored.flow),
                        stepID: try tables.string(stored.step),
                        name: try tables.string(stored.name), properties: try tables.object(stored.properties))
                }
                events.append(ClassifiedSession.Event(time: stored.time, eventClass: eventClass, seq: stored.seq))
            }
            var user: String?
            if readsUsers {
                user = try tables.string(head.user) ?? ""
                if let people, let known = user { user = people.person(of: known) }
            }
            guard cohort?.admits(sessionID: head.sessionID, userID: user ?? "") ?? true else { continue }
            var session = ClassifiedSession(
                sessionID: head.sessionID, userID: user, flowID: flow, flowVersion: head.version, context: context,
                events: [])
            swap(&session.events, &events)
            try consumer.add(classified: session)
            swap(&session.events, &events)
        }
    }

    /// The strings and objects of one reading thread, each decoded at its first use there: a
    /// thread of its own holds its own copies, so two threads never count references to one
    /// string's or object's storage (shared, those counts were a contended cache line).
    struct Tables {
        private let stored: UnsafeRawBufferPointer
        private let storedStrings: [Int]
        private let addedStrings: [String]
        private let storedObjects: [Int]
        private let addedObjects: [[String: JSONValue]]
        private let stringCount: Int
        private let objectCount: Int
        private let keptStringCount: Int
        /// How many strings a thread keeps decoded: 4 MB of slots at most.
        static let keptStrings = 1 << 18
        /// Decoded so far, by number (0 is never asked for here): the first ``keptStrings`` only
        /// (flows, steps, names come first); past them are user ids, each used by a session or
        /// two, decoded at each use (a slot for every string in each share was 27 MB of a first
        /// report's peak at 10.6M events; decoding every one at each use cost 10 % of a warm one).
        /// Both grow to the largest number asked so far: a funnel of classes asks only the first
        /// few strings, and making every slot up front was 1.5 % of a warm report.
        private var strings: [String?] = []
        private var objects: [[String: JSONValue]?] = []

        init(file: SessionFile, stored: UnsafeRawBufferPointer, keptStrings: Int) {
            self.stored = stored
            storedStrings = file.storedStrings
            addedStrings = file.addedStrings
            storedObjects = file.storedObjects
            addedObjects = file.addedObjects
            stringCount = storedStrings.count + addedStrings.count
            keptStringCount = min(stringCount, max(0, keptStrings)) + 1
            // Every object kept: a replay remembers step conditions per context object
            // (`EligibilityMemo`), which needs each session of a context to share its storage.
            objectCount = storedObjects.count + addedObjects.count + 1
        }

        /// `slots` made at least `index + 1` long (and at most `limit`), by doubling.
        @inline(__always)
        private static func grow<Element>(_ slots: inout [Element?], to index: Int, limit: Int) {
            guard index >= slots.count, index < limit else { return }
            let count = min(limit, max(index + 1, 2 * slots.count, 64))
            slots.append(contentsOf: repeatElement(nil, count: count - slots.count))
        }

        /// Throws as ``string(_:)`` would for `number`, without decoding it.
        @inline(__always)
        func check(string number: UInt64) throws {
            guard number <= UInt64(stringCount) else {
                throw SessionFileError.malformed("a string number out of range")
            }
        }

        /// Throws as ``object(_:)`` would for an out-of-range `number`, without decoding it.
        @inline(__always)
        func check(object number: UInt64) throws {
            guard number < UInt64(objectCount) else {
                throw SessionFileError.malformed("an object number out of range")
            }
        }

        @inline(__always)
        mutating func string(_ number: UInt64) throws -> String? {
            guard number != 0 else { return nil }
            try check(string: number)
            let index = Int(number)
            Self.grow(&strings, to: index, limit: keptStringCount)
            let kept = index < strings.count
            if kept, let known = strings[index] { return known }
            let text: String
            if index <= storedStrings.count {
                var reader = SlimReader(stored, from: storedStrings[index - 1])
                text = try reader.string()
            } else {
                text = addedStrings[index - storedStrings.count - 1]
            }
            if kept { strings[index] = text }
            return text
        }

        @inline(__always)
        mutating func object(_ number: UInt64) throws -> [String: JSONValue] {
            guard number != 0 else { return [:] }
            try check(object: number)
            let index = Int(number)
            Self.grow(&objects, to: index, limit: objectCount)
            if let known = objects[index] { return known }
            let object: [String: JSONValue]
            if index <= storedObjects.count {
                var reader = SlimReader(stored, from: storedObjects[index - 1])
                guard case .object(let members) = try reader.json() else {
                    throw SessionFileError.malformed("a table entry not an object")
                }
                object = members
            } else {
                object = addedObjects[index - storedObjects.count - 1]
            }
            objects[index] = object
            return object
        }
    }
}
