import Foundation
import Testing

@testable import OnboardMetricsPostgres
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// Partitions of `events` are created only for months rows fall in, a few per batch at most,
/// whatever ids a client sends (issue 14, defects 1 and 5).
@Suite struct PartitionPlannerTests {
    static func partitionCount(_ configuration: PostgresConfiguration) async throws -> Int {
        try await TestDatabase.withConnection(configuration) { connection in
            try connection.query("SELECT count(*) AS n FROM pg_inherits WHERE inhparent = 'events'::regclass")
                .first?["n"].int ?? -1
        }
    }

    static func event(id milliseconds: Int64, occurredAt: Date, seq: Int, random: inout SeededRandom) -> Event {
        var ids = UUIDv7Generator()
        return Event(
            eventID: ids.next(milliseconds: milliseconds, using: &random),
            sessionID: UUIDv7Generator.randomV4(using: &random),
            userID: "u", seq: seq, kind: .flowAbandoned, flowID: "f", flowVersion: 1, occurredAt: occurredAt)
    }

    @Test func anIDFarFromItsOccurredAtIsRejectedWithItsFieldAndCreatesNothing() async throws {
        let configuration = try await TestDatabase.migrated("partitions_far_ids")
        let before = try await Self.partitionCount(configuration)
        var random = SeededRandom(seed: 7)
        let now = Date()
        // The probe: a two-event batch with ids dated 2030 and 2130.
        let far = [
            Self.event(id: 1_900_000_000_000, occurredAt: now, seq: 1, random: &random),
            Self.event(id: 5_000_000_000_000, occurredAt: now, seq: 2, random: &random),
        ]
        let good = Self.event(id: Timestamp.milliseconds(now), occurredAt: now, seq: 3, random: &random)
        let recorder = try EventRecorder(
            configuration: EventRecorderTests.recorderConfiguration(configuration, spool: nil))
        for event in far {
            let error = #expect(throws: EventValidationError.self) { try recorder.record(event) }
            #expect(error?.field == "event_id")
            #expect(error?.code == .absurdTimestamp)
        }
        try recorder.record(good)
        let counters = await recorder.shutdown()
        #expect(counters.committed == 1)
        #expect(counters.rejected == 2)
        #expect(try await Self.partitionCount(configuration) - before <= 1)
        let stored = try await EventRecorderTests.count(configuration)
        #expect(stored.total == 1)
    }

    @Test func aBatchSpreadOverManyOldMonthsCreatesAFewAndStoresEveryRowOnce() async throws {
        let configuration = try await TestDatabase.migrated("partitions_spread")
        let before = try await Self.partitionCount(configuration)
        var random = SeededRandom(seed: 8)
        // Twelve months of 2005, each with its own id and occurred_at, and one event per month of 2005.
        var events: [Event] = []
        for month in 0..<12 {
            let start = PartitionPlanner.start(ofMonth: 2005 * 12 + Int64(month)).addingTimeInterval(86_400)
            events.append(Self.event(id: Timestamp.milliseconds(start), occurredAt: start, seq: month, random: &random))
        }
        var settings = EventRecorderTests.recorderConfiguration(configuration, spool: nil)
        // One batch per round, whatever the load: only the flush and the shutdown send.
        settings.flushInterval = 3_600
        let recorder = try EventRecorder(configuration: settings)
        for event in events { try recorder.record(event) }
        #expect(await recorder.flush())
        let afterFirst = try await Self.partitionCount(configuration)
        // Current and next month may be made sure of; past that, at most a few for the batch.
        #expect(afterFirst - before <= PartitionPlanner.maximumNewPerBatch + 2)
        // The same rows again: more months get their partitions, rows move out of the default one.
        for event in events { try recorder.record(event) }
        let counters = await recorder.shutdown()
        #expect(counters.committed == 12)
        #expect(counters.duplicates == 12)
        let stored = try await EventRecorderTests.count(configuration)
        #expect(stored.total == 12)
        #expect(stored.distinct == 12)
        let inPartitions = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query("SELECT count(*) AS n FROM events_default").first?["n"].int ?? -1
        }
        #expect(inPartitions == 12 - 2 * PartitionPlanner.maximumNewPerBatch)
    }

    @Test func oneOldLineMakesIngestCreateOnePartitionNotHundreds() async throws {
        let configuration = try await TestDatabase.migrated("partitions_ingest_old")
        let folder = try TestDatabase.temporaryFolder("partitions-ingest")
        defer { try? FileManager.default.removeItem(at: folder) }
        let before = try await Self.partitionCount(configuration)
        var random = SeededRandom(seed: 9)
        let old = Date(timeIntervalSince1970: 946_684_800 + 14 * 86_400)  // 2000-01-15
        var lines = [Self.event(id: Timestamp.milliseconds(old), occurredAt: old, seq: 0, random: &random).jsonLine]
        let now = Date()
        for seq in 1...10 {
            let at = now.addingTimeInterval(Double(-seq))
            lines.append(Self.event(id: Timestamp.milliseconds(at), occurredAt: at, seq: seq, random: &random).jsonLine)
        }
        let path = folder.appendingPathComponent("old.jsonl").path
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        let summary = try await EventIngester().ingest([path], into: configuration)
        #expect(summary.inserted == 11)
        #expect(summary.rejected == 0)
        // 2000-01 only (the current month has its partition since the migration).
        #expect(try await Self.partitionCount(configuration) - before == 1)
    }

    /// Issue 31: a public clickstream (six months of 2024, CSV) failed its first ingest with
    /// "updated partition constraint for default partition would be violated" after 20,000 rows:
    /// while one write connection created a month's partition (moving that month's rows out of
    /// the default partition), the other copied more rows of the month into the default one.
    /// The same shape — six months, time order, two write connections — must land whole at once.
    @Test func aSixMonthHistoryIngestsOnTheFirstRunOnTwoConnections() async throws {
        let configuration = try await TestDatabase.migrated("partitions_history")
        let folder = try TestDatabase.temporaryFolder("partitions-history")
        defer { try? FileManager.default.removeItem(at: folder) }
        var lines = ["user_id,session_id,event,timestamp"]
        let start = Date(timeIntervalSince1970: 1_704_067_200)  // 2024-01-01
        let rows = 31_106
        let span = 182.0 * 86_400
        for row in 0..<rows {
            let at = start.addingTimeInterval(span * Double(row) / Double(rows))
            let user = row / 25
            lines.append(
                "user-\(user),\(user)-\(row / 12),\(["main", "catalog", "product", "cart"][row % 4]),\(Timestamp.string(at))"
            )
        }
        let file = folder.appendingPathComponent("history.csv")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: file)
        let outcome = try await FunnelProcess.run(
            [
                "ingest", file.path, "--map", "user_id=user_id", "--map", "session_id=session_id", "--map",
                "event=event", "--map", "occurred_at=timestamp", "--write-connections", "2",
                "--database-url", TestDatabase.url(of: configuration), "--quiet",
            ], directory: folder)
        #expect(outcome.status == 0, "\(outcome.errors)")
        let stored = try await EventRecorderTests.count(configuration)
        #expect(stored.total == rows && stored.distinct == rows)
        let left = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query("SELECT count(*) AS n FROM events_default").first?["n"].int ?? -1
        }
        #expect(left == 0, "every month of the file has its partition by the end")
    }
}
