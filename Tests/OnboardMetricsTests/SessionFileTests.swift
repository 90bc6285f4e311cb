import Foundation
import OnboardMetricsStore
import Testing

@testable import OnboardMetricsReader
@testable import OnboardMetricsSDK

/// The slim form of the sessions (``SessionFile``): what is written is read back byte for byte,
/// in any number of shares, after replacements and removals; bounds place a trace as a per-event
/// filter would; a damaged file is an error, never a trap.
@Suite struct SessionFileTests {
    struct Collected: SessionConsumer {
        var sessions: [RecordedSession] = []
        mutating func add(_ session: RecordedSession) throws { sessions.append(session) }
    }

    /// Takes classes, recording each session; a session file must never build its events.
    struct Classes: ClassifyingSessionConsumer {
        var readsClasses = true
        var readsUsers: Bool
        var sessions: [ClassifiedSession] = []
        var built = 0

        func eventClass(
            kind: EventKind, flowID: String?, stepID: String?, name: String?, properties: [String: JSONValue]
        ) -> UInt64 {
            SessionFileTests.eventClass(kind: kind, flowID: flowID, stepID: stepID, name: name, properties: properties)
        }

        mutating func add(classified session: ClassifiedSession) throws { sessions.append(session) }
        mutating func add(_ session: RecordedSession) throws { built += 1 }
    }

    /// A class that changes with every byte of the values it is made of (FNV-1a over them).
    static func eventClass(
        kind: EventKind, flowID: String?, stepID: String?, name: String?, properties: [String: JSONValue]
    ) -> UInt64 {
        let text =
            "\(kind.rawValue)|\(bytes(flowID))|\(bytes(stepID))|\(bytes(name))|\(members(properties))"
        return text.utf8.reduce(0xCBF2_9CE4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
    }

    static func bytes(_ text: String?) -> [UInt8] { text.map { Array($0.utf8) } ?? [] }

    static func members(_ object: [String: JSONValue]) -> [String] {
        object.map { "\(Array($0.key.utf8))=\($0.value)" }.sorted()
    }

    /// What a consumer of classes should get for `sessions`: each session's id, user, flow,
    /// version and context, each event's time, class and seq.
    static func classified(_ sessions: [RecordedSession], users: Bool) -> [String] {
        sessions.map { session in
            let events = session.events.map {
                let eventClass = eventClass(
                    kind: $0.kind, flowID: $0.flowID, stepID: $0.stepID, name: $0.name, properties: $0.properties)
                return "\($0.time)/\(eventClass)/\($0.seq)"
            }
            return
                "\(session.sessionID) \(users ? bytes(session.userID) : []) \(bytes(session.flowID)) \(session.flowVersion ?? -1) \(members(session.context)) \(events)"
        }.sorted()
    }

    /// ``classified(_:users:)`` of what a file's read handed a consumer of classes.
    static func classified(_ sessions: [ClassifiedSession]) -> [String] {
        sessions.map { session in
            let events = session.events.map { "\($0.time)/\($0.eventClass)/\($0.seq)" }
            return
                "\(session.sessionID) \(bytes(session.userID)) \(bytes(session.flowID)) \(session.flowVersion ?? -1) \(members(session.context)) \(events)"
        }.sorted()
    }

    static func id(_ number: Int, milliseconds: UInt64 = 1_700_000_000_000) -> UUID {
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - index))) }
        bytes[6] = 0x70
        bytes[8] = 0x80
        for index in 0..<4 { bytes[12 + index] = UInt8(truncatingIfNeeded: number >> (8 * index)) }
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }

    /// Sessions with what the form must carry exactly: no flow, versions at the int4 extremes,
    /// negative times and `seq` going back, nested properties, a NaN's bits, text that is
    /// canonically equivalent but not the same bytes.
    static func sessions(_ trace: Int) -> [RecordedSession] {
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        let properties: [[String: JSONValue]] = [
            [:], ["plan": .string(composed)], ["plan": .string(decomposed)],
            [
                "n": .number(Double(trace)), "nan": .number(Double(bitPattern: 0x7FF8_0000_0000_0001)),
                "list": .array([.null, .bool(true), .object(["deep": .array([])])]),
            ],
            [composed: .bool(false)], [decomposed: .bool(false)],
        ]
        return (0..<(trace % 3 + 1)).map { part in
            let events = (0..<(trace * 7 % 11 + 1)).map { index in
                RecordedEvent(
                    kind: EventKind.allCases[(trace + index) % EventKind.allCases.count],
                    flowID: index % 4 == 0 ? nil : "flow-\(trace % 2)",
                    flowVersion: index % 3 == 0 ? nil : [0, -1, Int(Int32.max), Int(Int32.min)][index % 4],
                    stepID: index % 2 == 0 ? composed : decomposed, name: index % 5 == 0 ? nil : "name \(index)",
                    time: Int64(-5_000_000 + trace * 1_000_000 + index * 37_000 - (index % 3) * 90_000),
                    seq: index % 4 == 3 ? index - 2 : index, properties: properties[(trace + index) % properties.count])
            }
            return RecordedSession(
                sessionID: Self.id(trace * 10 + part), userID: trace % 4 == 0 ? decomposed : "user-\(trace % 5)",
                flowID: part == 0 ? nil : "flow-\(part)", flowVersion: part == 1 ? Int(Int32.min) : nil,
                context: trace % 2 == 0 ? [:] : ["locale": .string(trace % 4 == 1 ? composed : decomposed)],
                events: events)
        }
    }

    static func put(_ file: inout SessionFile, trace: Int, milliseconds: UInt64 = 1_700_000_000_000) throws {
        let sessions = Self.sessions(trace)
        _ = try file.put(
            Self.id(trace), sessions: sessions, events: sessions.reduce(0) { $0 + $1.events.count }, irregular: false,
            firstEventID: Self.id(0, milliseconds: milliseconds),
            lastEventID: Self.id(0, milliseconds: milliseconds + 5))
    }

    /// Every session of a file, read in `parts` shares, each thread keeping `keptStrings` decoded.
    static func read(
        _ file: SessionFile, parts: Int, keptStrings: Int = SessionFile.Tables.keptStrings
    ) throws -> [RecordedSession] {
        try file.shares(parts).flatMap { share in
            var collected = Collected()
            _ = try file.read(
                share, bounds: .init(since: nil, until: nil), people: nil, cohort: nil, keptStrings: keptStrings,
                into: &collected)
            return collected.sessions
        }
    }

    /// Whether two lists hold the same sessions, byte for byte, in any order.
    static func same(_ one: [RecordedSession], _ other: [RecordedSession]) -> Bool {
        guard one.count == other.count else { return false }
        let key = { (session: RecordedSession) in "\(session.sessionID) \(session.startTime)" }
        let theirs = Dictionary(other.map { (key($0), $0) }, uniquingKeysWith: { first, _ in first })
        return one.allSatisfy { session in theirs[key(session)].map { session.isIdentical(to: $0) } ?? false }
    }

    static func temporaryFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("session-file-\(UUID().uuidString).sessions")
    }

    @Test func whatIsWrittenIsReadBackByteForByteInAnyShares() throws {
        var file = SessionFile(closeAfter: 1_800_000_000, closeFinishedAfter: nil)
        for trace in 0..<40 { try Self.put(&file, trace: trace) }
        file.mark(watermark: 77, database: "1/2")
        let expected = (0..<40).flatMap(Self.sessions)
        for parts in [1, 2, 3, 7, 200] {
            #expect(Self.same(try Self.read(file, parts: parts), expected), "before writing, \(parts) shares")
        }
        let url = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: url) }
        try file.write(to: url)
        let loaded = try SessionFile(contentsOf: url, closeAfter: 1_800_000_000, closeFinishedAfter: nil)
        #expect(loaded.watermark == 77 && loaded.database == "1/2")
        #expect(loaded.summary.events == expected.reduce(0) { $0 + $1.events.count })
        for parts in [1, 2, 5] {
            #expect(Self.same(try Self.read(loaded, parts: parts), expected), "read from disk, \(parts) shares")
        }
        // Strings past the ones a thread keeps are decoded at each use, to the same bytes.
        for kept in [0, 1, 3] {
            #expect(Self.same(try Self.read(loaded, parts: 2, keptStrings: kept), expected), "keeping \(kept)")
        }
        // Canonically equivalent text is not merged: each session keeps its own bytes.
        let steps = Set(
            try Self.read(loaded, parts: 1).flatMap { $0.events.compactMap(\.stepID) }.map { Array($0.utf8) })
        #expect(steps.count == 2)
    }

    /// A consumer of classes gets, without events built, each event's time and seq and the class
    /// of its decoded values, with users, people and cohorts applied as for decoded sessions; the
    /// classes stay right when there are more distinct values than the memo holds.
    @Test func aConsumerOfClassesGetsTheClassesOfTheDecodedEvents() throws {
        var file = SessionFile(closeAfter: 1_800_000_000, closeFinishedAfter: nil)
        for trace in 0..<40 { try Self.put(&file, trace: trace) }
        // 20,000 distinct names and property objects, past the memo's 4,096 slots.
        for trace in 40..<60 {
            let sessions = (0..<2).map { part in
                RecordedSession(
                    sessionID: Self.id(trace * 10 + part), userID: "user-\(trace)", flowID: nil, flowVersion: nil,
                    context: [:],
                    events: (0..<500).map { index in
                        let number = (trace * 2 + part) * 500 + index
                        return RecordedEvent(
                            kind: index % 2 == 0 ? .custom : .featureUsed, name: "name \(number % 7_000)",
                            time: Int64(number), seq: index + 1,
                            properties: number % 3 == 0 ? [:] : ["$event": .string("sent \(number)")])
                    })
            }
            _ = try file.put(
                Self.id(trace), sessions: sessions, events: 1_000, irregular: false, firstEventID: Self.id(0),
                lastEventID: Self.id(0, milliseconds: 1_700_000_000_005))
        }
        let url = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: url) }
        file.mark(watermark: 1, database: "d")
        try file.write(to: url)
        let loaded = try SessionFile(contentsOf: url, closeAfter: 1_800_000_000, closeFinishedAfter: nil)
        var people = PersonLinks()
        people.link("user-1", to: "user-3")
        people.link("user-41", to: "user-42")
        people.resolve()
        let cohorts: [Cohort?] = [
            nil,
            Cohort(
                name: "s", unit: .session,
                members: [Self.id(10).uuidString.lowercased(), Self.id(421).uuidString.lowercased()]),
            Cohort(name: "u", unit: .user, members: ["user-3", "user-42", "user-2"]),
        ]
        for cohort in cohorts {
            for links in [nil, people] {
                for readsUsers in [false, true] {
                    for parts in [1, 3] {
                        var decoded: [RecordedSession] = []
                        var classes: [ClassifiedSession] = []
                        for share in try loaded.shares(parts) {
                            var collected = Collected()
                            _ = try loaded.read(
                                share, bounds: .init(since: nil, until: nil), people: links, cohort: cohort,
                                into: &collected)
                            decoded += collected.sessions
                            var consumer = Classes(readsUsers: readsUsers)
                            _ = try loaded.read(
                                share, bounds: .init(since: nil, until: nil), people: links, cohort: cohort,
                                into: &consumer)
                            #expect(consumer.built == 0)
                            classes += consumer.sessions
                            // One that does not take classes as it was set up gets decoded sessions.
                            var declining = Classes(readsClasses: false, readsUsers: readsUsers)
                            _ = try loaded.read(
                                share, bounds: .init(since: nil, until: nil), people: links, cohort: cohort,
                                into: &declining)
                            #expect(declining.sessions.isEmpty && declining.built == collected.sessions.count)
                        }
                        let users = readsUsers || cohort?.unit == .user
                        #expect(!classes.isEmpty)
                        let got = Self.classified(classes)
                        let expected = Self.classified(decoded, users: users)
                        let wrong = zip(got, expected).filter { $0 != $1 }.count
                        #expect(
                            got.count == expected.count && wrong == 0,
                            "\(wrong) of \(expected.count) differ: cohort \(cohort?.name ?? "none"), people \(links != nil), users \(readsUsers), \(parts) shares"
                        )
                    }
                }
            }
        }
    }

    /// A file of no records is written again once a trace comes (nothing is set aside as dead
    /// there, so the trace itself must say so).
    @Test func aFileOfNoRecordsIsChangedByItsFirstTrace() throws {
        var file = SessionFile(closeAfter: 1_800_000_000, closeFinishedAfter: nil)
        file.mark(watermark: 3, database: "d")
        let url = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: url) }
        try file.write(to: url)
        var loaded = try SessionFile(contentsOf: url, closeAfter: 1_800_000_000, closeFinishedAfter: nil)
        #expect(!loaded.isChanged)
        try Self.put(&loaded, trace: 1)
        #expect(loaded.isChanged)
    }

    /// A new file is always worth writing; a loaded one once what was added and set aside comes
    /// to 2 % of its records' bytes (below that, the next report reads those traces again).
    @Test func aFewChangesAreNotWorthWritingTheFileAgain() throws {
        var file = SessionFile(closeAfter: 1_800_000_000, closeFinishedAfter: nil)
        for trace in 0..<400 { try Self.put(&file, trace: trace) }
        file.mark(watermark: 3, database: "d")
        #expect(file.isWorthWriting)
        let url = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: url) }
        try file.write(to: url)
        var loaded = try SessionFile(contentsOf: url, closeAfter: 1_800_000_000, closeFinishedAfter: nil)
        #expect(!loaded.isWorthWriting)
        // One trace of 400 replaced, one removed: a quarter of a percent.
        try Self.put(&loaded, trace: 7)
        loaded.remove(Self.id(8))
        #expect(loaded.isChanged && !loaded.isWorthWriting)
        // Twelve more: past 2 %.
        for trace in 400..<412 { try Self.put(&loaded, trace: trace) }
        #expect(loaded.isWorthWriting)
    }

    /// A time past what the replay's arithmetic may take (as a damaged file could hold) is an
    /// error while reading, not a value handed on.
    @Test func aTimeOutOfRangeIsRefused() throws {
        var file = SessionFile(closeAfter: 1_800_000_000, closeFinishedAfter: nil)
        let far = RecordedSession(
            sessionID: Self.id(1), userID: "u", flowID: nil, flowVersion: nil, context: [:],
            events: [RecordedEvent(kind: .custom, time: SessionFile.timeLimit, seq: 0)])
        _ = try file.put(
            Self.id(1), sessions: [far], events: 1, irregular: false, firstEventID: Self.id(0),
            lastEventID: Self.id(0))
        #expect(throws: SessionFileError.self) { _ = try Self.read(file, parts: 1) }
    }

    @Test func aKindsNumberIsItsPlaceInTheList() {
        for (place, kind) in SessionFile.kinds.enumerated() {
            #expect(Int(SessionFile.number(of: kind)) == place, "\(kind)")
        }
    }

    @Test func replacedAndRemovedTracesAreGoneAfterWritingAgain() throws {
        var file = SessionFile(closeAfter: 60_000_000, closeFinishedAfter: 3_600_000_000)
        for trace in 0..<20 { try Self.put(&file, trace: trace) }
        file.mark(watermark: 5, database: "d")
        let url = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: url) }
        try file.write(to: url)
        var loaded = try SessionFile(contentsOf: url, closeAfter: 60_000_000, closeFinishedAfter: 3_600_000_000)
        #expect(!loaded.isChanged)
        // Trace 3 now holds trace 25's sessions; 4 and 30 (never kept) are removed; 21 is new.
        let replacement = Self.sessions(25)
        _ = try loaded.put(
            Self.id(3), sessions: replacement, events: replacement.reduce(0) { $0 + $1.events.count }, irregular: false,
            firstEventID: Self.id(0), lastEventID: Self.id(1))
        loaded.remove(Self.id(4))
        loaded.remove(Self.id(30))
        try Self.put(&loaded, trace: 21)
        loaded.mark(watermark: 9, database: "d")
        #expect(loaded.isChanged)
        let expected = (0..<22).filter { ![3, 4, 20].contains($0) }.flatMap(Self.sessions) + replacement
        #expect(Self.same(try Self.read(loaded, parts: 3), expected), "before writing")
        try loaded.write(to: url)
        let again = try SessionFile(contentsOf: url, closeAfter: 60_000_000, closeFinishedAfter: 3_600_000_000)
        #expect(again.watermark == 9)
        #expect(Self.same(try Self.read(again, parts: 2), expected), "after writing")
        #expect(again.summary.events == expected.reduce(0) { $0 + $1.events.count })
        // Another grouping's reader does not take it.
        #expect(throws: SessionFileError.self) {
            _ = try SessionFile(contentsOf: url, closeAfter: 60_000_000, closeFinishedAfter: nil)
        }
    }

    /// A trace is inside, outside or across `[since, until)` exactly as filtering its first and
    /// last event ids against the bounds' floors by `isBefore` (the traces' own filter) says.
    @Test func boundsPlaceATraceAsItsEventIdsWould() {
        var random = SessionTraceTests.Random(state: 91)
        let base: UInt64 = 1_760_000_000_000
        for _ in 0..<5_000 {
            // Times on, just before and just after the bounds' seconds, where an off-by-one shows.
            let first = base + (random.next() % 12) * 1000 + [0, 1, 999][Int(random.next() % 3)]
            let last = first + [0, 1, 999, 1000, 2001][Int(random.next() % 5)]
            let since =
                random.next() % 3 == 0 ? nil : Self.id(0, milliseconds: base + (random.next() % 14) * 1000).withZeroTail
            let until =
                random.next() % 3 == 0 ? nil : Self.id(0, milliseconds: base + (random.next() % 14) * 1000).withZeroTail
            let firstID = Self.id(Int(random.next() % 1000), milliseconds: first)
            let lastID = Self.id(Int(random.next() % 1000), milliseconds: last)
            func inBounds(_ id: UUID) -> Bool {
                (since.map { !id.isBefore($0) } ?? true) && (until.map { id.isBefore($0) } ?? true)
            }
            let expected: SessionFile.Bounds.Place
            if let since, lastID.isBefore(since) {
                expected = .outside
            } else if let until, !firstID.isBefore(until) {
                expected = .outside
            } else {
                expected = inBounds(firstID) && inBounds(lastID) ? .inside : .across
            }
            #expect(SessionFile.Bounds(since: since, until: until).place(first: first, last: last) == expected)
        }
    }

    /// Every truncation and many changed bytes of a file: an error or a read, never a trap.
    @Test func aDamagedFileIsAnErrorNeverATrap() throws {
        var file = SessionFile(closeAfter: 1_800_000_000, closeFinishedAfter: nil)
        for trace in 0..<6 { try Self.put(&file, trace: trace) }
        file.mark(watermark: 1, database: "d")
        let url = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: url) }
        try file.write(to: url)
        let bytes = try [UInt8](Data(contentsOf: url))
        var random = SessionTraceTests.Random(state: 5)
        var damaged: [[UInt8]] = (0..<bytes.count).map { Array(bytes.prefix($0)) }
        for _ in 0..<3_000 {
            var copy = bytes
            for _ in 0...(random.next() % 3) {
                // Inside the head and tail too: the tail's check must not be the only defence.
                copy[Int(random.next() % UInt64(copy.count))] = UInt8(truncatingIfNeeded: random.next())
            }
            damaged.append(copy)
        }
        var refused = 0
        for copy in damaged {
            try Data(copy).write(to: url)
            do {
                let loaded = try SessionFile(contentsOf: url, closeAfter: 1_800_000_000, closeFinishedAfter: nil)
                // A consumer of classes reads without decoding most values: it too gets an error.
                for share in try loaded.shares(2) {
                    var consumer = Classes(readsUsers: true)
                    _ = try loaded.read(
                        share, bounds: .init(since: nil, until: nil), people: nil, cohort: nil, into: &consumer)
                }
                _ = try Self.read(loaded, parts: 2)
            } catch is SessionFileError {
                refused += 1
            }
        }
        // Every truncation is refused (the tail is gone), and most changes are.
        #expect(refused >= bytes.count)
    }
}

extension UUID {
    /// This id with every byte after its time zero: a bound's floor.
    fileprivate var withZeroTail: UUID {
        var value = uuid
        withUnsafeMutableBytes(of: &value) { bytes in for index in 6..<16 { bytes[index] = 0 } }
        return UUID(uuid: value)
    }
}
