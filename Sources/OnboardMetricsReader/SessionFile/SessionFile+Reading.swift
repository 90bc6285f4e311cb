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
        try stored.withUnsafeBytes { (storedBytes: UnsafeRawBufferPointer) in
            try added.withUnsafeBytes { (addedBytes: UnsafeRawBufferPointer) in
                var tables = Tables(file: self, stored: storedBytes, keptStrings: keptStrings)
                var buffer: [RecordedEvent] = []
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
                        if skipping, !changed.isEmpty, changed.contains(head.sessionID) {
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
                        try Self.readRecord(
                            &reader, tables: &tables, buffer: &buffer, people: people, cohort: cohort, into: &consumer)
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

    /// One record's sessions (after its id, length, events and times).
    @inline(__always)
    private static func readRecord<Consumer: SessionConsumer>(
        _ reader: inout SlimReader, tables: inout Tables, buffer events: inout [RecordedEvent], people: PersonLinks?,
        cohort: Cohort?, into consumer: inout Consumer
    ) throws {
        let sessions = try reader.number(below: reader.end - reader.offset + 1)
        for _ in 0..<sessions {
            let sessionID = try reader.uuid()
            var user = try tables.string(reader.varint()) ?? ""
            let flow = try tables.string(reader.varint())
            let version = try reader.optional()
            guard version.map({ Int(Int32.min)...Int(Int32.max) ~= $0 }) ?? true else {
                throw SessionFileError.malformed("a flow version out of range")
            }
            let context = try tables.object(reader.varint())
            // An event takes at least 8 bytes (a kind and seven numbers): a count past what is left
            // is refused before room is made for it.
            let count = try reader.number(below: (reader.end - reader.offset) / 8 + 1)
            // The last session's array again, when the consumer kept no copy of it: no allocation
            // and no release of an array per session.
            events.removeAll(keepingCapacity: true)
            events.reserveCapacity(count)
            var time: Int64 = 0
            var seq: Int64 = 0
            for _ in 0..<count {
                let kindNumber = Int(try reader.byte())
                guard kindNumber < kinds.count else { throw SessionFileError.malformed("an unknown kind") }
                let eventFlow = try tables.string(reader.varint())
                let eventVersion = try reader.optional()
                let step = try tables.string(reader.varint())
                let name = try tables.string(reader.varint())
                time &+= try reader.zigzag()
                seq &+= try reader.zigzag()
                // What the events table holds (`seq` and versions in 32 bits) and times within
                // 2^60 µs of 1970: a damaged file that still decodes must not hand the replay a
                // value its arithmetic overflows on (a file past them is read from the traces).
                guard time > -Self.timeLimit, time < Self.timeLimit, seq >= Int64(Int32.min), seq <= Int64(Int32.max)
                else { throw SessionFileError.malformed("a time or seq out of range") }
                if let eventVersion, eventVersion < Int(Int32.min) || eventVersion > Int(Int32.max) {
                    throw SessionFileError.malformed("a flow version out of range")
                }
                let properties = try tables.object(reader.varint())
                events.append(
                    RecordedEvent(
                        kind: kinds[kindNumber], flowID: eventFlow, flowVersion: eventVersion, stepID: step, name: name,
                        time: time, seq: Int(truncatingIfNeeded: seq), properties: properties))
            }
            if let people { user = people.person(of: user) }
            var session = RecordedSession(
                sessionID: sessionID, userID: user, flowID: flow, flowVersion: version, context: context, events: [])
            swap(&session.events, &events)
            if cohort?.admits(session) ?? true { try consumer.add(session) }
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
        /// How many strings a thread keeps decoded: 4 MB of slots.
        static let keptStrings = 1 << 18
        /// Decoded so far, by number (0 is never asked for here): the first ``keptStrings`` only
        /// (flows, steps, names come first); past them are user ids, each used by a session or
        /// two, decoded at each use (a slot for every string in each share was 27 MB of a first
        /// report's peak at 10.6M events; decoding every one at each use cost 10 % of a warm one).
        private var strings: [String?]
        private var objects: [[String: JSONValue]?]

        init(file: SessionFile, stored: UnsafeRawBufferPointer, keptStrings: Int) {
            self.stored = stored
            storedStrings = file.storedStrings
            addedStrings = file.addedStrings
            storedObjects = file.storedObjects
            addedObjects = file.addedObjects
            stringCount = storedStrings.count + addedStrings.count
            strings = Array(repeating: nil, count: min(stringCount, max(0, keptStrings)) + 1)
            // Every object kept: a replay remembers step conditions per context object
            // (`EligibilityMemo`), which needs each session of a context to share its storage.
            objects = Array(repeating: nil, count: storedObjects.count + addedObjects.count + 1)
        }

        @inline(__always)
        mutating func string(_ number: UInt64) throws -> String? {
            guard number != 0 else { return nil }
            guard number <= UInt64(stringCount) else {
                throw SessionFileError.malformed("a string number out of range")
            }
            let index = Int(number)
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
            guard number < UInt64(objects.count) else {
                throw SessionFileError.malformed("an object number out of range")
            }
            let index = Int(number)
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
