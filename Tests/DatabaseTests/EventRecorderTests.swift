import Foundation
import Testing

@testable import OnboardMetricsPostgres
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

@Suite struct EventRecorderTests {
    /// The recorder-bench executable, built beside funnel.
    static var benchExecutable: String {
        URL(fileURLWithPath: TestDatabase.funnelExecutable).deletingLastPathComponent()
            .appendingPathComponent("recorder-bench").path
    }

    static func recorderConfiguration(_ database: PostgresConfiguration, spool: String?) -> EventRecorder.Configuration
    {
        var configuration = EventRecorder.Configuration(database: database)
        configuration.spoolDirectory = spool
        configuration.initialBackoff = 0.02
        configuration.maximumBackoff = 0.2
        configuration.logger.logLevel = .critical
        return configuration
    }

    static func count(_ configuration: PostgresConfiguration) async throws -> (total: Int, distinct: Int) {
        try await TestDatabase.withConnection(configuration) { connection in
            let row = try connection.query("SELECT count(*) AS n, count(DISTINCT event_id) AS d FROM events").first
            return (row?["n"].int ?? -1, row?["d"].int ?? -1)
        }
    }

    @Test func oneMillionEventsAreRecordedAndCountedExactly() async throws {
        let configuration = try await TestDatabase.migrated("recorder_million")
        let outcome = try await BlockingIO.run {
            try ProcessRunner.run(
                Self.benchExecutable,
                ["--events", "1000000", "--database-url", TestDatabase.url(of: configuration), "--batch-size", "10000"])
        }
        #expect(outcome.status == 0, "\(outcome.output)")
        #expect(outcome.output.contains("recorded 1000000 committed 1000000 duplicates 0"))
        let counts = try await Self.count(configuration)
        #expect(counts.total == 1_000_000)
        #expect(counts.distinct == 1_000_000)
    }

    @Test func everyEventSentTwiceLandsOnce() async throws {
        let configuration = try await TestDatabase.migrated("recorder_twice")
        let events = SampleEvents.make(sessions: 2_000, perSession: 10)
        let recorder = try EventRecorder(configuration: Self.recorderConfiguration(configuration, spool: nil)).started()
        for event in events { try recorder.record(event) }
        // The second copy arrives after the first was committed, and again within one batch.
        #expect(await recorder.flush())
        for event in events {
            try recorder.record(event)
            try recorder.record(event)
        }
        let counters = await recorder.shutdown()
        #expect(counters.recorded == 60_000)
        #expect(counters.committed == 20_000)
        #expect(counters.duplicates == 40_000)
        let counts = try await Self.count(configuration)
        #expect(counts.total == 20_000)
        #expect(counts.distinct == 20_000)
    }

    /// Transactions this database rolled back, once every other backend of it has gone (a
    /// backend reports its counts when it exits).
    static func rollbacks(_ configuration: PostgresConfiguration) async throws -> Int {
        try await TestDatabase.withConnection(configuration) { connection in
            for _ in 0..<100 {
                let others = try connection.query(
                    "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
                ).first?["n"].int
                if others == 0 { break }
                Thread.sleep(forTimeInterval: 0.05)
            }
            try connection.query("SELECT pg_stat_clear_snapshot()")
            return try connection.query(
                "SELECT xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()"
            ).first?["n"].int ?? -1
        }
    }

    /// A resend that lands in the batch after its original's (an app resending across two
    /// requests) is found by a probe of the primary key, not by a COPY that fails and rolls back.
    @Test func aResendInTheNextBatchIsProbedNotFoundByAFailedCopy() async throws {
        let configuration = try await TestDatabase.migrated("recorder_resend_split")
        let events = SampleEvents.make(sessions: 20, perSession: 10, seed: 5)
        var recorderConfiguration = Self.recorderConfiguration(configuration, spool: nil)
        recorderConfiguration.writeConnections = 1
        let before = try await Self.rollbacks(configuration)
        let recorder = try EventRecorder(configuration: recorderConfiguration).started()
        // Ten batches, each after the first opening with the last event of the one before.
        for start in stride(from: 0, to: events.count, by: 20) {
            if start > 0 { try recorder.record(events[start - 1]) }
            for event in events[start..<(start + 20)] { try recorder.record(event) }
            #expect(await recorder.flush())
        }
        let counters = await recorder.shutdown()
        #expect(counters.committed == events.count)
        #expect(counters.duplicates == 9)
        let counts = try await Self.count(configuration)
        #expect(counts.total == events.count && counts.distinct == events.count)
        #expect(try await Self.rollbacks(configuration) == before)
    }

    @Test func aFlushWaitsForEveryEarlierEventWhicheverWriterFinishesFirst() async throws {
        let configuration = try await TestDatabase.migrated("recorder_writers")
        let events = SampleEvents.make(sessions: 600, perSession: 10, seed: 3)
        var recorderConfiguration = Self.recorderConfiguration(configuration, spool: nil)
        recorderConfiguration.writeConnections = 4
        recorderConfiguration.batchSize = 97
        let recorder = try EventRecorder(configuration: recorderConfiguration).started()
        var recorded = 0
        var round = 0
        while recorded < events.count {
            // Uneven rounds, so that batches of different sizes are in flight on different writers.
            let count = min(events.count - recorded, 150 + (round * 389) % 700)
            for event in events[recorded..<(recorded + count)] { try recorder.record(event) }
            recorded += count
            round += 1
            #expect(await recorder.flush())
            let stored = try await Self.count(configuration)
            #expect(stored.total == recorded, "round \(round): a flush returned before an earlier batch committed")
        }
        let counters = await recorder.shutdown()
        #expect(counters.committed == events.count)
        #expect(counters.duplicates == 0)
    }

    /// A caller waiting on its own events (a collector's request) is answered once they commit,
    /// even while another writer's earlier batch is held up; `flush()` still waits for that batch.
    @Test func aMarkedFlushWaitsForItsOwnEventsNotForAnEarlierBatchHeldUp() async throws {
        let configuration = try await TestDatabase.migrated("recorder_marks")
        let events = SampleEvents.make(sessions: 3, perSession: 4, seed: 11)
        let recorder = try EventRecorder(configuration: Self.recorderConfiguration(configuration, spool: nil)).started()
        // The month's partition exists before the blocking row goes in.
        for event in events[0..<4] { try recorder.record(event) }
        #expect(await recorder.flush())

        // Another transaction holds an uncommitted row with the id of `held`: the COPY of `held`
        // waits on the primary key until that transaction ends.
        let held = events[4]
        let blocker = try PostgresConnection(configuration: configuration)
        defer { blocker.close() }
        try blocker.query("BEGIN")
        try blocker.query(
            "INSERT INTO events (event_id, session_id, seq, kind, occurred_at) VALUES ($1, $2, $3, $4, $5)",
            [
                .uuid(held.eventID), .uuid(held.sessionID), .int32(Int32(held.seq)), .text(held.kind.rawValue),
                .timestamp(held.occurredAt),
            ])
        var heldMark = RecordingMark()
        try recorder.record(held, marking: &heldMark)
        let heldFlushed = LockedBox(false)
        let everythingFlushed = LockedBox(false)
        let heldFlush = Task {
            let result = await recorder.flush(heldMark)
            heldFlushed.withLock { $0 = true }
            return result
        }
        #expect(try await Self.waitForLockWait(configuration), "the held batch's COPY never waited on the lock")

        // The next events go to the other writer and commit; their flush does not wait for `held`.
        var mark = RecordingMark()
        for event in events[5...] { try recorder.record(event, marking: &mark) }
        let everythingFlush = Task {
            await recorder.flush()
            everythingFlushed.withLock { $0 = true }
        }
        let flushed = LockedBox(false)
        let markedFlush = Task {
            await recorder.flush(mark)
            flushed.withLock { $0 = true }
        }
        for _ in 0..<200 where !flushed.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(50)) }
        #expect(flushed.withLock { $0 }, "a marked flush waited for an earlier batch of another writer")
        #expect(try await Self.count(configuration).total == events.count - 1)
        #expect(!heldFlushed.withLock { $0 })
        #expect(!everythingFlushed.withLock { $0 }, "flush() returned before an earlier event committed")

        // Once the other transaction rolls back, the held event lands and both waits end.
        try blocker.query("ROLLBACK")
        #expect(await heldFlush.value)
        await everythingFlush.value
        await markedFlush.value
        let counters = await recorder.shutdown()
        #expect(counters.committed == events.count)
        let counts = try await Self.count(configuration)
        #expect(counts.total == events.count && counts.distinct == events.count)
    }

    /// Waits (up to 10 s) until a backend of the database waits on a heavyweight lock.
    static func waitForLockWait(_ configuration: PostgresConfiguration) async throws -> Bool {
        for _ in 0..<200 {
            let waiting = try await TestDatabase.withConnection(configuration) { connection in
                try connection.query(
                    "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
                ).first?["n"].int ?? 0
            }
            if waiting > 0 { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    @Test func invalidEventsAreRejectedAndCounted() async throws {
        let configuration = try await TestDatabase.migrated("recorder_invalid")
        let recorder = try EventRecorder(configuration: Self.recorderConfiguration(configuration, spool: nil)).started()
        var good = SampleEvents.make(sessions: 1, perSession: 3)
        var bad = good[2]
        bad.eventID = UUID()
        bad.stepID = String(repeating: "x", count: 201)
        good.removeLast()
        for event in good { try recorder.record(event) }
        let error = #expect(throws: EventValidationError.self) { try recorder.record(bad) }
        #expect(error?.field == "step_id")
        let counters = await recorder.shutdown()
        #expect(counters.rejected == 1)
        #expect(counters.committed == 2)
        #expect(throws: RecorderError.self) { try recorder.record(good[0]) }
    }

    @Test func unreachableDatabaseSpoolsAndTheNextRecorderDrains() async throws {
        let configuration = try await TestDatabase.migrated("recorder_outage")
        let spool = try TestDatabase.temporaryFolder("spool-outage").path
        defer { try? FileManager.default.removeItem(atPath: spool) }
        let unreachable = PostgresConfiguration("host=/nonexistent-socket-folder dbname=x connect_timeout=1")
        let events = SampleEvents.make(sessions: 500, perSession: 10)
        let offline = try EventRecorder(configuration: Self.recorderConfiguration(unreachable, spool: spool)).started()
        for event in events { try offline.record(event) }
        #expect(await offline.flush() == false)  // durable in the spool, not committed
        let during = await offline.shutdown()
        #expect(during.spooled == 5_000)
        #expect(during.committed == 0)
        #expect(during.retried >= 1)
        let online = try EventRecorder(configuration: Self.recorderConfiguration(configuration, spool: spool)).started()
        #expect(await online.flush())
        let after = await online.shutdown()
        #expect(after.committed == 5_000)
        let counts = try await Self.count(configuration)
        #expect(counts.total == 5_000)
        #expect(counts.distinct == 5_000)
    }

    /// Past the spool's cap the recorder refuses (issue 59: what the spool holds was acknowledged,
    /// and the old policy dropped its oldest segments): `record` throws `.spoolFull` where it
    /// would wait, `isRefusingEvents` says so (the collector answers 503), and every event that
    /// reached the spool lands once the database is back; only events never spooled are dropped.
    @Test func longOutageKeepsMemoryBoundedAndRefusesPastTheDiskCapDroppingNothingSpooled() async throws {
        let configuration = try await TestDatabase.migrated("recorder_long_outage")
        let spool = try TestDatabase.temporaryFolder("spool-cap").path
        defer { try? FileManager.default.removeItem(atPath: spool) }
        let unreachable = PostgresConfiguration("host=/nonexistent-socket-folder dbname=x connect_timeout=1")
        var offline = Self.recorderConfiguration(unreachable, spool: spool)
        offline.maximumBufferedEvents = 5_000
        offline.batchSize = 1_000
        offline.spoolCapacityBytes = 4 * 1024 * 1024
        let events = SampleEvents.make(sessions: 6_000, perSession: 10, seed: 11)
        let recorder = try EventRecorder(configuration: offline).started()
        #expect(!recorder.isRefusingEvents)
        // 60,000 events through a 5,000-event queue into a 4 MiB spool: record() waits for the
        // spool's disk writes, then, once the spool is full, throws instead of waiting.
        let accepted = try await BlockingIO.run { () -> Int in
            for (index, event) in events.enumerated() {
                do {
                    try recorder.record(event)
                } catch let error as RecorderError where error.code == .spoolFull {
                    return index
                }
            }
            return events.count
        }
        #expect(accepted < 60_000)
        #expect(recorder.isRefusingEvents)
        let during = await recorder.shutdown()
        #expect(during.recorded == accepted)
        #expect(during.spooled > 0 && during.spooled < accepted)
        // Dropped: only what waited in memory, never spooled.
        #expect(during.dropped == accepted - during.spooled)
        let online = try EventRecorder(configuration: Self.recorderConfiguration(configuration, spool: spool)).started()
        #expect(await online.flush())
        let after = await online.shutdown()
        #expect(after.committed == during.spooled)
        let stored = try await TestDatabase.withConnection(configuration) { connection in
            Set(try connection.query("SELECT event_id FROM events").compactMap { $0["event_id"].uuid })
        }
        #expect(stored.count == during.spooled)
        #expect(stored.isSubset(of: Set(events[..<accepted].map(\.eventID))))
    }

    @Test func serverKilledMidRunAndRestartedLosesAndDoublesNothing() async throws {
        _ = try TestDatabase.adminURL()
        let folder = try TestDatabase.temporaryFolder("crash-cluster")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cluster = EmbeddedCluster(dataDirectory: folder.appendingPathComponent("postgres").path)
        let database = try await BlockingIO.run { () -> PostgresConfiguration in
            let configuration = try cluster.start()
            let connection = try PostgresConnection(configuration: configuration)
            try Migrator(directory: TestDatabase.migrationsDirectory).migrate(on: connection)
            return configuration
        }
        let spool = folder.appendingPathComponent("spool").path
        var recorderConfiguration = Self.recorderConfiguration(database, spool: spool)
        recorderConfiguration.batchSize = 2_000
        let recorder = try EventRecorder(configuration: recorderConfiguration).started()
        let events = SampleEvents.make(sessions: 20_000, perSession: 10, seed: 7)
        try await BlockingIO.run {
            for (index, event) in events.enumerated() {
                try recorder.record(event)
                if index == 80_000 {
                    // Crash the server mid-run (no clean shutdown), keep recording, then bring it back.
                    try cluster.stop(mode: .immediate)
                }
                if index == 140_000 { try cluster.start() }
            }
        }
        #expect(await recorder.flush())
        let counters = await recorder.shutdown()
        defer { _ = try? cluster.stop() }
        #expect(counters.recorded == 200_000)
        #expect(counters.retried >= 1)
        let counts = try await Self.count(database)
        #expect(counts.total == 200_000)
        #expect(counts.distinct == 200_000)
    }

    @Test(arguments: [true, false])
    func recorderKilledMidRunLandsWhatWasDurableExactlyOnce(databaseUp: Bool) async throws {
        let configuration = try await TestDatabase.migrated("recorder_sigkill_\(databaseUp ? "up" : "down")")
        let spool = try TestDatabase.temporaryFolder("spool-kill").path
        defer { try? FileManager.default.removeItem(atPath: spool) }
        let target =
            databaseUp
            ? configuration : PostgresConfiguration("host=/nonexistent-socket-folder dbname=x connect_timeout=1")
        let output = spool + "/bench.out"
        // Start the recorder process, let it report durable events, then SIGKILL it. The wait is for
        // that precondition only (up to 3 minutes: the whole suite shares two cores), not a speed check.
        let script = """
            '\(Self.benchExecutable)' --events 400000 --flush-every 5000 --spool-dir '\(spool)' \
            --database-url '\(TestDatabase.url(of: target))' > '\(output)' 2>/dev/null &
            pid=$!
            for i in $(seq 1 3600); do
              n=$(grep -c durable '\(output)' 2>/dev/null || true)
              if [ "${n:-0}" -ge 8 ]; then break; fi
              sleep 0.05
            done
            kill -9 $pid; wait $pid 2>/dev/null; exit 0
            """
        let killed = try await BlockingIO.run { try ProcessRunner.run("/bin/sh", ["-c", script]) }
        #expect(killed.status == 0, "\(killed.output)")
        let report = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        let durable =
            report.split(separator: "\n").compactMap { $0.hasPrefix("durable ") ? Int($0.dropFirst(8)) : nil }.max()
            ?? 0
        #expect(durable >= 40_000 && durable < 400_000, "the recorder was killed mid-run")

        // A new recorder on the same spool, with the database reachable, drains what was spooled.
        let drainer = try EventRecorder(configuration: Self.recorderConfiguration(configuration, spool: spool))
            .started()
        #expect(await drainer.flush())
        _ = await drainer.shutdown()
        let check = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query(
                """
                SELECT count(*) AS n, count(DISTINCT event_id) AS d,
                       count(*) FILTER (WHERE (properties->>'i')::int < $1) AS durable
                FROM events
                """, [.int32(Int32(durable))]
            ).first
        }
        #expect(check?["n"].int == check?["d"].int)
        #expect(check?["durable"].int == durable)
    }
}
