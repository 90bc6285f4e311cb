import Foundation
import Testing

@testable import OnboardMetricsReader
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

@Suite struct IngestTests {
    /// A JSONL file of good events with one line of every kind of bad one between them.
    private static func mixedFile(in folder: URL) throws -> (path: String, good: [Event], badLines: [Int]) {
        let good = SampleEvents.make(sessions: 20, perSession: 10, seed: 4)
        let template = good[1]
        func variant(_ change: (inout Event) -> Void) -> String {
            var event = template
            event.eventID = UUID()
            change(&event)
            return event.jsonLine
        }
        let templateLine = template.jsonLine
        let bad: [String] = [
            #"{"event_id": "#,  // malformed JSON
            templateLine.replacingOccurrences(of: #""kind":"step_viewed""#, with: #""kind":"step_exploded""#),
            templateLine.replacingOccurrences(
                of: #""event_id":"\#(template.eventID.uuidString.lowercased())","#, with: ""),
            variant { $0.eventID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) },  // nil id
            templateLine.replacingOccurrences(
                of: #""session_id":"\#(template.sessionID.uuidString.lowercased())","#, with: ""),
            templateLine.replacingOccurrences(of: "health-study", with: "health\u{0}study"),  // raw NUL byte
            variant { $0.userID = "nul\u{0}inside" },  // escaped \u0000
            variant {
                $0.kind = .custom
                $0.name = String(repeating: "n", count: 201)
            },
            variant { $0.properties = ["blob": .string(String(repeating: "x", count: 70_000))] },
            variant { $0.occurredAt = Date(timeIntervalSince1970: 100) },  // 1970: absurd
            variant { $0.occurredAt = Date().addingTimeInterval(10 * 365 * 86_400) },  // ten years ahead
            templateLine.replacingOccurrences(of: #""seq":1"#, with: #""seq":1,"colour":"red""#),  // unknown key
            variant { $0.seq = -1 },
            variant { $0.stepID = nil },  // step_viewed without its step
            "[1, 2, 3]",
            templateLine.replacingOccurrences(of: "2026-09", with: "2026-13"),  // not a date
        ]
        var lines: [String] = []
        var badLines: [Int] = []
        var goodIterator = good.makeIterator()
        var badIterator = bad.makeIterator()
        // Mixed: a bad line after every 12 good ones, and one blank line, which is not a record.
        while true {
            for _ in 0..<12 { if let event = goodIterator.next() { lines.append(event.jsonLine) } }
            if lines.count == 30 { lines.append("") }
            guard let line = badIterator.next() else { break }
            lines.append(line)
            badLines.append(lines.count)
        }
        while let event = goodIterator.next() { lines.append(event.jsonLine) }
        let path = folder.appendingPathComponent("mixed.jsonl").path
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        return (path, good, badLines)
    }

    @Test func everyBadLineIsRejectedAndEveryGoodLineLandsOnce() async throws {
        let configuration = try await TestDatabase.migrated("ingest_mixed")
        let folder = try TestDatabase.temporaryFolder("ingest-mixed")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (path, good, badLines) = try Self.mixedFile(in: folder)
        #expect(badLines.count == 16)
        // Small batches, so the file takes many transactions and the hand-off between threads is exercised.
        let ingester = EventIngester(options: IngestOptions(batchSize: 37))

        let collector = RejectionCollector()
        let first = try await ingester.ingest([path], into: configuration, rejected: { collector.add($0) })
        #expect(first.linesRead == good.count + badLines.count)
        #expect(first.rejected == badLines.count)
        #expect(first.inserted == good.count)
        #expect(first.duplicates == 0)
        #expect(collector.all.map(\.line) == badLines)
        #expect(collector.all.allSatisfy { $0.file == path })
        #expect(first.files.first?.rejectsFile == path + ".rejects")

        let rejects = try String(contentsOfFile: path + ".rejects", encoding: .utf8)
        let comments = rejects.split(separator: "\n").filter { $0.hasPrefix("# ") }
        #expect(comments.map { Int($0.split(separator: ":")[1]) } == badLines.map(Optional.some))
        #expect(rejects.contains("\(path):\(badLines[0]): event_id: invalid JSON"))
        #expect(rejects.contains("kind: unknown kind \"step_exploded\""))
        #expect(rejects.contains("event_id: is missing"))
        #expect(rejects.contains("NUL"))
        #expect(rejects.contains("name: is 201 characters"))
        #expect(rejects.contains("properties: is "))
        #expect(rejects.contains("occurred_at: is before 2000-01-01"))
        #expect(rejects.contains("occurred_at: is more than 24 hours in the future"))
        #expect(rejects.contains("colour: is not a key of the event format"))
        #expect(rejects.contains("step_id: is required for step_viewed"))

        let stored = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query("SELECT event_id FROM events").compactMap { $0["event_id"].uuid }
        }
        #expect(Set(stored) == Set(good.map(\.eventID)))
        #expect(stored.count == good.count)

        let second = try await ingester.ingest([path], into: configuration)
        #expect(second.inserted == 0)
        #expect(second.duplicates == good.count)
        #expect(second.rejected == badLines.count)
        let count = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query("SELECT count(*) AS n FROM events").first?["n"].int
        }
        #expect(count == good.count)
    }

    @Test func csvExportsLandThroughTheMappingAndOnlyOnce() async throws {
        let configuration = try await TestDatabase.migrated("ingest_csv")
        let folder = try TestDatabase.temporaryFolder("ingest-csv")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("clicks.txt").path
        let csv = [
            "\u{FEFF}uid,sid,action,ts,screen,note",
            "u1,visit-1,step_viewed,2026-10-01 08:00:00,welcome,",
            #"u1,visit-1,step_completed,2026-10-01 08:00:05,welcome,"said ""ok"", then left""#,
            "u1,visit-1,opened_settings,2026-10-01T10:00:07+02:00,,\"two",
            "lines\"",
            "u2,visit-2,step_viewed,01/10/2026 08:00,welcome,",  // bad timestamp
            "u2,visit-2,step_viewed,2026-10-01 08:01:00",  // too few fields
            "u2,visit-2,step_viewed,2026-10-01 08:01:00,,",  // step_viewed without a step
            "u2,visit-2,tap,2026-10-01 08:02:00,,",
            "u2,visit-2,tap,2026-10-01 08:02:00,,",  // the same again: a second tap, not a duplicate
        ].joined(separator: "\r\n")
        try Data(csv.utf8).write(to: URL(fileURLWithPath: path))
        let mapping = try ColumnMapping(specifications: [
            "user_id=uid", "session_id=sid", "event=action", "occurred_at=ts", "step=screen",
        ])
        let ingester = EventIngester(options: IngestOptions(mapping: mapping))
        let first = try await ingester.ingest([path], into: configuration)
        #expect(first.files.first?.format == .csv)
        #expect(first.linesRead == 8)
        #expect(first.rejected == 3)
        #expect(first.inserted == 5)
        let rejects = try String(contentsOfFile: path + ".rejects", encoding: .utf8)
        #expect(rejects.contains("\(path):6: occurred_at: is not a timestamp"))
        #expect(rejects.contains("\(path):7: the row has 4 fields; the header has 6"))
        #expect(rejects.contains("\(path):8: step_id: is required for step_viewed"))

        let rows = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query(
                """
                SELECT session_id, user_id, seq, kind, step_id, name, occurred_at, properties->>'note' AS note
                FROM events ORDER BY user_id, seq
                """)
        }
        #expect(rows.map { $0["kind"].string } == ["step_viewed", "step_completed", "custom", "custom", "custom"])
        // A row's position counts even when the row is rejected, unless its fields cannot be told apart.
        #expect(rows.map { $0["seq"].int } == [1, 2, 3, 3, 4])
        #expect(rows.map { $0["name"].string } == [nil, nil, "opened_settings", "tap", "tap"])
        #expect(rows[1]["note"].string == #"said "ok", then left"#)
        #expect(rows[2]["note"].string == "two\nlines")
        #expect(rows[2]["occurred_at"].date == Date(timeIntervalSince1970: 1_790_841_607))
        #expect(rows[0]["session_id"].uuid == StableID.sessionID(for: "visit-1"))

        let second = try await ingester.ingest([path], into: configuration)
        #expect(second.inserted == 0)
        #expect(second.duplicates == 5)
    }

    @Test func resendsAcrossBatchesOfConcurrentWritersLandOnceAndAreCountedOnce() async throws {
        let configuration = try await TestDatabase.migrated("ingest_writers")
        let folder = try TestDatabase.temporaryFolder("ingest-writers")
        defer { try? FileManager.default.removeItem(at: folder) }
        let events = SampleEvents.make(sessions: 120, perSession: 9, seed: 8)
        // Every fifth event (session starts among them) is sent again 40 lines later: with batches
        // of 11 on four connections, a copy and its original are in batches written at once.
        var lines = events.map(\.jsonLine)
        var resent = 0
        for (index, event) in events.enumerated().reversed() where index.isMultiple(of: 5) {
            lines.insert(event.jsonLine, at: min(index + 40, lines.count))
            resent += 1
        }
        let path = folder.appendingPathComponent("resends.jsonl").path
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))

        let ingester = EventIngester(options: IngestOptions(batchSize: 11, writeConnections: 4))
        let first = try await ingester.ingest([path], into: configuration)
        #expect(first.linesRead == events.count + resent)
        #expect(first.inserted == events.count)
        #expect(first.duplicates == resent)
        let again = try await EventIngester(options: IngestOptions(batchSize: 7, writeConnections: 3))
            .ingest([path], into: configuration)
        #expect(again.inserted == 0)
        #expect(again.duplicates == events.count + resent)
        let stored = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query(
                """
                SELECT (SELECT count(*) FROM events) AS events, (SELECT count(DISTINCT event_id) FROM events) AS ids,
                       (SELECT count(*) FROM sessions) AS sessions
                """
            ).first
        }
        #expect(stored?["events"].int == events.count)
        #expect(stored?["ids"].int == events.count)
        #expect(stored?["sessions"].int == 120)
    }

    @Test func theCommandMigratesAFreshDatabaseAndPrintsAStableSummary() async throws {
        let configuration = try await TestDatabase.fresh("ingest_command")
        let folder = try TestDatabase.temporaryFolder("ingest-command")
        defer { try? FileManager.default.removeItem(at: folder) }
        let events = SampleEvents.make(sessions: 30, perSession: 5, seed: 9)
        let first = folder.appendingPathComponent("a.jsonl")
        let second = folder.appendingPathComponent("b.jsonl")
        try Data(events[0..<100].map { $0.jsonLine + "\n" }.joined().utf8).write(to: first)
        try Data((events[50...].map { $0.jsonLine + "\n" }.joined() + "{oops\n").utf8).write(to: second)
        let rejects = folder.appendingPathComponent("all.rejects").path

        // The test configuration reaches its database through an override; the command needs a URL.
        let url = TestDatabase.url(of: configuration)
        let outcome = try await FunnelProcess.run([
            "ingest", first.path, second.path, "--database-url", url, "--rejects", rejects,
            "--format", "json", "--quiet", "--migrations", TestDatabase.migrationsDirectory.path,
        ])
        #expect(outcome.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [String: Any])
        #expect(json["lines_read"] as? Int == 201)
        #expect(json["inserted"] as? Int == 150)
        #expect(json["duplicates"] as? Int == 50)
        #expect(json["rejected"] as? Int == 1)
        #expect(json["seconds"] is Double)
        #expect(json["events_per_second"] is Double)
        #expect((json["files"] as? [[String: Any]])?.count == 2)
        let rejected = try String(contentsOfFile: rejects, encoding: .utf8)
        #expect(rejected == "# \(second.path):101: invalid JSON at column 2: expected '\"'\n{oops\n")
    }

    @Test func aRejectsFileThatCannotBeCreatedIsRefusedBeforeAnythingIsStored() async throws {
        // Issue 59 (P3-9): the good lines were stored, then the run failed at its first bad line.
        let configuration = try await TestDatabase.fresh("ingest_rejects_folder")
        let folder = try TestDatabase.temporaryFolder("ingest-rejects-folder")
        defer { try? FileManager.default.removeItem(at: folder) }
        let events = SampleEvents.make(sessions: 4, perSession: 5, seed: 59)
        let input = folder.appendingPathComponent("a.jsonl")
        try Data((events.map { $0.jsonLine + "\n" }.joined() + "{oops\n").utf8).write(to: input)
        let url = TestDatabase.url(of: configuration)
        for rejects in [folder.appendingPathComponent("nodir/x.rej").path, input.path + "/x.rej"] {
            let outcome = try await FunnelProcess.run([
                "ingest", input.path, "--database-url", url, "--rejects", rejects, "--quiet",
                "--migrations", TestDatabase.migrationsDirectory.path,
            ])
            #expect(outcome.status == 64, "\(outcome.errors)")
            #expect(outcome.errors.contains("the rejects file \(rejects) cannot be created"), "\(outcome.errors)")
        }
        // Nothing stored: the command migrated the database, then refused before reading a line.
        let stored = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query("SELECT count(*) AS n FROM events").first?["n"].int
        }
        #expect(stored == 0)
        // The default beside the input, in a folder that exists, still works.
        let outcome = try await FunnelProcess.run([
            "ingest", input.path, "--database-url", url, "--quiet", "--migrations",
            TestDatabase.migrationsDirectory.path,
        ])
        #expect(outcome.status == 0, "\(outcome.errors)")
        #expect(FileManager.default.fileExists(atPath: input.path + ".rejects"))
    }

    @Test func aSmallLoadBuildsItsTracesAndALargerOneLeavesThemToTheFirstReport() async throws {
        let configuration = try await TestDatabase.fresh("ingest_traces")
        let folder = try TestDatabase.temporaryFolder("ingest-traces")
        defer { try? FileManager.default.removeItem(at: folder) }
        let events = SampleEvents.make(sessions: 40, perSession: 5, seed: 12)
        let first = folder.appendingPathComponent("first.jsonl")
        let second = folder.appendingPathComponent("second.jsonl")
        // 20 sessions without their last event, then those last events (their traces change) and
        // 20 new sessions.
        let inFirst = events.indices.filter { $0 < 100 && events[$0].seq < 4 }
        let firstEvents = inFirst.map { events[$0] }
        try Data(firstEvents.map { $0.jsonLine + "\n" }.joined().utf8).write(to: first)
        try Data(
            events.indices.filter { !Set(inFirst).contains($0) }.map { events[$0].jsonLine + "\n" }.joined().utf8
        ).write(to: second)
        let url = TestDatabase.url(of: configuration)
        func ingest(_ file: URL, limit: Int) async throws -> [String: Any] {
            let outcome = try await FunnelProcess.run([
                "ingest", file.path, "--database-url", url, "--format", "json", "--quiet",
                "--trace-build-limit", String(limit), "--migrations", TestDatabase.migrationsDirectory.path,
            ])
            #expect(outcome.status == 0, "\(outcome.errors)")
            return try #require(try JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [String: Any])
        }
        func waiting() async throws -> Int {
            try await TestDatabase.withConnection(configuration) {
                try $0.query("SELECT count(DISTINCT session_id) FROM trace_dirty").first?[0].int ?? -1
            }
        }
        let firstSessions = Set(firstEvents.map(\.sessionID)).count
        let allSessions = Set(events.map(\.sessionID)).count

        // More sessions than the limit await: nothing is built, the summary says none was.
        let large = try await ingest(first, limit: firstSessions - 1)
        #expect(large["traces_built"] == nil)
        #expect(large["trace_seconds"] == nil)
        #expect(try await waiting() == firstSessions)

        // Within the limit, every waiting session is built (those the first load left too), and
        // the traces match the events.
        let small = try await ingest(second, limit: allSessions)
        #expect(small["traces_built"] as? Int == allSessions)
        #expect(small["trace_seconds"] is Double)
        #expect(try await waiting() == 0)
        let result = try await TestDatabase.withConnection(configuration) { try TraceVerifier().verify(on: $0) }
        #expect(result.isConsistent)
        #expect(result.traces == allSessions)

        // 0 turns it off.
        let again = folder.appendingPathComponent("again.jsonl")
        let more = SampleEvents.make(sessions: 3, perSession: 4, seed: 13)
        try Data(more.map { $0.jsonLine + "\n" }.joined().utf8).write(to: again)
        #expect(try await ingest(again, limit: 0)["traces_built"] == nil)
        #expect(try await waiting() == 3)
    }
}

/// Collects rejections reported from the parsing thread.
private final class RejectionCollector: Sendable {
    private let rejections = LockedBox<[EventIngester.Rejection]>([])

    func add(_ rejection: EventIngester.Rejection) {
        rejections.withLock { $0.append(rejection) }
    }

    var all: [EventIngester.Rejection] { rejections.withLock { $0 } }
}
