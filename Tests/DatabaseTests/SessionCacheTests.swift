import Foundation
import Testing

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsGeneration
@testable import OnboardMetricsPostgres
@testable import OnboardMetricsReader
@testable import OnboardMetricsRendering
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// Sessions kept decoded between reports (``SessionCache``) equal a fresh read of the events,
/// after any interleaving of writes, resends, deletes, updates, truncation and rebuilds, with
/// each refresh reading only the traces written since the last.
@Suite struct SessionCacheTests {
    typealias Exactness = SessionTraceExactnessTests

    /// The readers a cache serves (no bounds): default closing, early closing of finished
    /// sessions, short closing, people as users.
    static func readers() -> [SessionReader] {
        var people = SessionReader(closeAfter: 3_600)
        people.people = PersonLinks()
        return [
            SessionReader(), SessionReader(closeAfter: 8 * 86_400, closeFinishedAfter: 3_600),
            SessionReader(closeAfter: 600), people,
        ]
    }

    /// The cache's sessions for `reader`, sorted as ``SessionTraceExactnessTests`` sorts; `nil` when
    /// the cache declined.
    static func cached(_ cache: SessionCache, _ reader: SessionReader) async throws -> [RecordedSession]? {
        guard let snapshot = try await BlockingIO.run({ try cache.snapshot(for: reader) }) else { return nil }
        return Exactness.ordered(snapshot.sessions)
    }

    /// Compares with `caches[i]` serving `readers()[i]` and the last one the funnel report: a cache
    /// keeps two groupings, so one cache for all would read most of them from scratch each time.
    static func compare(
        _ configuration: PostgresConfiguration, caches: [SessionCache], flow: FlowDefinition, now: Date, step: String
    ) async throws {
        for (position, reader) in readers().enumerated() {
            let cache = caches[position]
            let events = try await Exactness.sessions(configuration, reader, source: .events, connections: 1)
            // People apply as a report reads: compare through the reader, and the kept sessions.
            var sharded = ShardedReader(
                reader: reader, topology: ShardTopology(shards: []), coordinator: configuration, connectionsPerShard: 2)
            sharded.cache = cache
            let read = Exactness.ordered(try await sharded.read { Exactness.Collected() }.flatMap(\.sessions))
            // Booleans: a failure prints the step, not two thousand sessions.
            let sameRead = read == events
            #expect(read.count == events.count, "\(step), reader \(position): sessions read through the cache")
            #expect(sameRead, "\(step), reader \(position): read through the cache")
            let kept = try await cached(cache, reader)
            #expect(kept != nil, "\(step), reader \(position): the cache declined")
            if reader.people == nil {
                let sameKept = kept == events
                #expect(sameKept, "\(step), reader \(position): kept sessions")
            }
        }
        let json = try await RandomChanges.funnelJSON(configuration, flow: flow, now: now) {
            $0.cache = caches[readers().count]
        }
        #expect(json.events == json.kept, "\(step): funnel report JSON")
    }

    @Test(arguments: [UInt64(1), 2])
    func keptSessionsEqualAFreshReadAfterAnyInterleaving(seed: UInt64) async throws {
        let configuration = try await TestDatabase.migrated("session_cache_\(seed)")
        let caches = (0...Self.readers().count).map { _ in
            SessionCache(configuration: configuration, maximumEvents: 1_000_000)
        }
        let flowURL = TestDatabase.packageRoot.appendingPathComponent("examples/flows/health-study.json")
        let flow = try FlowDefinition.decode(from: Data(contentsOf: flowURL))
        try await RandomChanges.run(configuration, generatorSeed: seed, randomSeed: seed + 100, steps: 50) {
            now, step in
            try await Self.compare(configuration, caches: caches, flow: flow, now: now, step: step)
        }
        let removals = try await TestDatabase.withConnection(configuration) {
            try $0.query("SELECT count(*)::text FROM trace_removals").first?[0].string
        }
        #expect(Int(removals ?? "") ?? 0 > 0, "no session was removed")
    }

    /// A trace written by a transaction still open when the cache refreshed (its id below the
    /// refresh's snapshot) is read by the next refresh, once committed.
    @Test func aTraceCommittedAfterARefreshByAnOlderTransactionIsReadNextTime() async throws {
        let configuration = try await TestDatabase.migrated("session_cache_inflight")
        let generator = try SyntheticGenerator(scenario: Scenario.healthStudy, seed: 7)
        let first = (0..<20).flatMap { generator.session($0).events }
        try await TestDatabase.withConnection(configuration) {
            _ = try EventStore().write(first, on: $0, receivedAt: Date())
        }
        let cache = SessionCache(configuration: configuration, maximumEvents: 1_000_000)
        let reader = SessionReader()
        #expect(try await Self.cached(cache, reader)?.count == 20)
        // An older transaction, open across the next refresh.
        let open = try PostgresConnection(configuration: configuration)
        defer { open.close() }
        try open.query("BEGIN")
        _ = try Self.transactionID(open)
        // A younger one writes a new session and commits; the refresh sees it.
        let later = generator.session(20).events
        try await TestDatabase.withConnection(configuration) {
            _ = try EventStore().write(later, on: $0, receivedAt: Date())
        }
        #expect(try await Self.cached(cache, reader)?.count == 21)
        // The older one now replaces a trace (session 0's by session 1's events) and commits.
        let (target, source) = (first[0].sessionID, generator.session(1).events[0].sessionID)
        try open.query(
            """
            UPDATE session_traces SET trace = (SELECT trace FROM session_traces WHERE session_id = $2),
                written_by = pg_current_xact_id()
            WHERE session_id = $1
            """, [.uuid(target), .uuid(source)])
        try open.query("COMMIT")
        let traces = try await Exactness.sessions(configuration, reader, source: .traces, connections: 1)
        let kept = try await Self.cached(cache, reader)
        let same = kept == traces
        #expect(same, "the kept sessions differ from a read of the traces")
        let replaced = kept?.first { $0.sessionID == target }
        let sameEvents = replaced?.events == traces.first { $0.sessionID == source }?.events
        #expect(sameEvents, "the kept session \(target) does not have the replacing trace's events")
    }

    /// The id of `connection`'s transaction, assigned by asking for it (`pg_current_xact_id()`).
    static func transactionID(_ connection: PostgresConnection) throws -> UInt64? {
        try connection.query("SELECT pg_current_xact_id()::text").first?[0].string.flatMap { UInt64($0) }
    }

    /// The watermark a refresh would take now (``TraceChanges/watermarkQuery``) and the newest
    /// trace's writer.
    static func watermarkAndNewestTrace(
        _ configuration: PostgresConfiguration
    ) async throws -> (watermark: UInt64?, newest: UInt64?) {
        try await TestDatabase.withConnection(configuration) { connection in
            let watermark = try connection.query(TraceChanges.watermarkQuery).first?[0].string
            let newest = try connection.query("SELECT max(written_by)::text FROM session_traces").first?[0].string
            return (watermark.flatMap { UInt64($0) }, newest.flatMap { UInt64($0) })
        }
    }

    /// The watermark once it passes `xid`, or the last one read if it has not within `seconds`.
    ///
    /// Why wait: a transaction of another database that ends between the query's snapshot and its
    /// read of `pg_stat_activity` still counts (``TraceChanges/watermarkQuery``), and other suites
    /// run theirs meanwhile. That lowers one reading for a moment, not for seconds.
    static func watermark(
        _ configuration: PostgresConfiguration, passing xid: UInt64, within seconds: Int = 10
    ) async throws -> UInt64 {
        var watermark: UInt64 = 0
        for _ in 0..<(seconds * 10) {
            watermark = try await watermarkAndNewestTrace(configuration).watermark ?? 0
            if watermark > xid { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        return watermark
    }

    /// A transaction of another database of the cluster does not hold the watermark back (it
    /// cannot write these traces); one of this database does.
    @Test func onlyThisDatabasesTransactionsHoldTheWatermarkBack() async throws {
        let configuration = try await TestDatabase.migrated("session_cache_watermark")
        let elsewhere = try await TestDatabase.fresh("session_cache_watermark_elsewhere")
        let other = try PostgresConnection(configuration: elsewhere)
        defer { other.close() }
        try other.query("BEGIN")
        let heldElsewhere = try Self.transactionID(other)
        try await Self.write(try Self.sessions(5, seed: 9).flatMap { $0 }, to: configuration)
        let cache = SessionCache(configuration: configuration, maximumEvents: 1_000_000)
        #expect(try await Self.cached(cache, SessionReader())?.count == 5)
        let newest = try await Self.watermarkAndNewestTrace(configuration).newest
        let (held, traces) = (try #require(heldElsewhere), try #require(newest))
        #expect(held < traces, "the other database's transaction began before the traces were written")
        let passed = try await Self.watermark(configuration, passing: traces)
        #expect(passed > traces, "another database's transaction held the watermark back")
        // One of this database, begun after the traces, holds it at its id (or below, for a
        // moment, by another's that just ended).
        let here = try PostgresConnection(configuration: configuration)
        defer { here.close() }
        try here.query("BEGIN")
        let heldHere = try #require(try Self.transactionID(here))
        // A later transaction that commits puts the snapshot's `xmax` past it: without one, `xmax`
        // itself would be the held id, whatever the query made of the running ones.
        let later = try await TestDatabase.withConnection(configuration) { try Self.transactionID($0) }
        #expect(try #require(later) > heldHere)
        #expect(try await Self.watermarkAndNewestTrace(configuration).watermark ?? .max <= heldHere)
        try here.query("COMMIT")
        try other.query("COMMIT")
        #expect(try await Self.watermark(configuration, passing: heldHere) > heldHere)
    }

    /// A session whose events are all deleted leaves the cache; so does everything at TRUNCATE, and
    /// a rebuild from scratch keeps the sessions that still have events.
    @Test func deletedSessionsLeaveTheCache() async throws {
        let configuration = try await TestDatabase.migrated("session_cache_removals")
        let events = try Self.sessions(10, seed: 5).flatMap { $0 }
        try await Self.write(events, to: configuration)
        let cache = SessionCache(configuration: configuration, maximumEvents: 1_000_000)
        #expect(try await Self.cached(cache, SessionReader())?.count == 10)
        let gone = events[0].sessionID
        _ = try await TestDatabase.withConnection(configuration) {
            try $0.query("DELETE FROM events WHERE session_id = $1", [.uuid(gone)])
        }
        let kept = try await Self.cached(cache, SessionReader())
        #expect(kept?.count == 9)
        #expect(kept?.contains { $0.sessionID == gone } == false)
        _ = try await TestDatabase.withConnection(configuration) { try TraceBuilder().rebuildAll(on: $0, parts: 2) }
        #expect(try await Self.cached(cache, SessionReader())?.count == 9)
        _ = try await TestDatabase.withConnection(configuration) { try $0.query("TRUNCATE events") }
        #expect(try await Self.cached(cache, SessionReader())?.count == 0)
    }

    /// The events of `count` generated health-study sessions, one array a session.
    static func sessions(_ count: Int, seed: UInt64) throws -> [[Event]] {
        let generator = try SyntheticGenerator(scenario: Scenario.healthStudy, seed: seed)
        return (0..<count).map { generator.session($0).events }
    }

    static func write(_ events: [Event], to configuration: PostgresConfiguration) async throws {
        try await TestDatabase.withConnection(configuration) {
            _ = try EventStore().write(events, on: $0, receivedAt: Date())
        }
    }

    /// A new database `name` holding the first 10 of 20 generated sessions (all 20 returned), and
    /// a cache over it.
    static func halfWritten(
        _ name: String, seed: UInt64
    ) async throws -> (PostgresConfiguration, [[Event]], SessionCache) {
        let configuration = try await TestDatabase.migrated(name)
        let sessions = try Self.sessions(20, seed: seed)
        try await write(sessions[0..<10].flatMap { $0 }, to: configuration)
        return (configuration, sessions, SessionCache(configuration: configuration, maximumEvents: 1_000_000))
    }

    /// A refresh in the background (what `funnel dashboard` runs every few seconds) brings every
    /// kept grouping up to date without a report: new sessions, sessions with more events, and
    /// deleted ones; it keeps no grouping that was not kept.
    @Test func refreshingTheKeptGroupingsReadsWhatWasWrittenSince() async throws {
        let configuration = try await TestDatabase.migrated("session_cache_refresh_kept")
        let sessions = try Self.sessions(20, seed: 8)
        func write(_ events: [Event]) async throws { try await Self.write(events, to: configuration) }
        // The first ten sessions, the last event of the first one held back.
        try await write(Array(sessions[0].dropLast()) + sessions[1..<10].flatMap { $0 })
        let cache = SessionCache(configuration: configuration, maximumEvents: 1_000_000)
        #expect(try cache.refreshKept() == 0)
        #expect(cache.keptSessions().isEmpty)
        let readers = [SessionReader(), SessionReader(closeAfter: 600)]
        for reader in readers { #expect(try await Self.cached(cache, reader)?.count ?? 0 >= 10) }
        // Ten more sessions, the held-back event, and one session deleted.
        try await write(sessions[10..<20].flatMap { $0 } + [sessions[0].last].compactMap { $0 })
        _ = try await TestDatabase.withConnection(configuration) {
            try $0.query("DELETE FROM events WHERE session_id = $1", [.uuid(sessions[5][0].sessionID)])
        }
        #expect(try cache.refreshKept() == 2)
        let kept = cache.keptSessions()
        #expect(kept.count == 2)
        for (reader, sessions) in zip(readers, kept) {
            let events = try await Exactness.sessions(configuration, reader, source: .events, connections: 1)
            let same = Exactness.ordered(sessions) == events
            #expect(same, "closeAfter \(reader.closeAfter): the kept sessions after the refresh")
        }
    }

    /// A page's refresh brings the other kept grouping up to date too (its next page only
    /// replays), and a third grouping replaces the older of the two.
    @Test func aPageBringsTheOtherKeptGroupingUpToDateBesideItsOwn() async throws {
        let (configuration, sessions, cache) = try await Self.halfWritten("session_cache_side_by_side", seed: 9)
        let readers = [SessionReader(), SessionReader(closeAfter: 600), SessionReader(closeAfter: 60)]
        for reader in readers.prefix(2) { #expect(try await Self.cached(cache, reader) != nil) }
        try await Self.write(sessions[10..<20].flatMap { $0 }, to: configuration)
        // Only the first grouping's page: the second is kept up to date all the same.
        #expect(try await Self.cached(cache, readers[0]) != nil)
        let kept = cache.keptSessions()
        #expect(kept.count == 2)
        for (reader, sessions) in zip(readers.prefix(2).reversed(), kept) {
            let events = try await Exactness.sessions(configuration, reader, source: .events, connections: 1)
            let same = Exactness.ordered(sessions) == events
            #expect(same, "closeAfter \(reader.closeAfter): kept after the other grouping's page")
        }
        // A third grouping: the one not asked for lately (closeAfter 600) goes.
        #expect(try await Self.cached(cache, readers[2]) != nil)
        let third = cache.keptSessions()
        #expect(third.count == 2)
        let latest = try await Exactness.sessions(configuration, readers[0], source: .events, connections: 1)
        let newest = try await Exactness.sessions(configuration, readers[2], source: .events, connections: 1)
        #expect(third.map { Exactness.ordered($0) } == [latest, newest])
    }

    /// Two groupings cut most sessions alike: those are kept once, both when the second grouping
    /// is read whole and when both are brought up to date side by side.
    @Test func twoGroupingsKeepOneCopyOfEachSessionTheyCutAlike() async throws {
        let (configuration, sessions, cache) = try await Self.halfWritten("session_cache_shared", seed: 12)
        let readers = [SessionReader(), SessionReader(closeAfter: 600)]
        /// The events' storage of each kept session, by session and start; checks every session equal
        /// in both groupings is one in memory, and returns how many are.
        func shared() throws -> Int {
            let kept = cache.keptSessions()
            try #require(kept.count == 2)
            func key(_ session: RecordedSession) -> String { "\(session.sessionID) \(session.startTime)" }
            let first = Dictionary(kept[0].map { (key($0), $0) }, uniquingKeysWith: { first, _ in first })
            var alike = 0
            for session in kept[1] {
                guard let other = first[key(session)], other == session else { continue }
                alike += 1
                let mine = session.events.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
                let theirs = other.events.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
                #expect(mine == theirs, "session \(key(session)) kept twice")
            }
            return alike
        }
        for reader in readers { #expect(try await Self.cached(cache, reader) != nil) }
        let before = try shared()
        #expect(before > 0)
        try await Self.write(sessions[10..<20].flatMap { $0 }, to: configuration)
        #expect(try cache.refreshKept() == 2)
        #expect(try shared() > before)
        for (reader, kept) in zip(readers, cache.keptSessions()) {
            let events = try await Exactness.sessions(configuration, reader, source: .events, connections: 1)
            #expect(Exactness.ordered(kept) == events, "closeAfter \(reader.closeAfter)")
        }
    }

    /// Beyond its limit the cache keeps nothing, and reports read PostgreSQL (the same result).
    @Test func aCacheOverItsLimitDeclinesAndReportsReadPostgreSQL() async throws {
        let configuration = try await TestDatabase.migrated("session_cache_limit")
        let generator = try SyntheticGenerator(scenario: Scenario.healthStudy, seed: 3)
        let events = (0..<30).flatMap { generator.session($0).events }
        try await TestDatabase.withConnection(configuration) {
            _ = try EventStore().write(events, on: $0, receivedAt: Date())
        }
        let cache = SessionCache(configuration: configuration, maximumEvents: events.count / 2)
        #expect(try await Self.cached(cache, SessionReader()) == nil)
        // Known before reading: nothing was read to be dropped (memory a process would hold on to).
        try await TestDatabase.withConnection(configuration) { connection in
            var entry = SessionCache.Entry()
            let key = SessionCache.Key(closeAfter: 1_800_000_000, closeFinishedAfter: nil)
            #expect(try SessionCache.read(&entry, key: key, on: connection, maximumEvents: events.count / 2) == nil)
            #expect(entry.events == 0)
            #expect(entry.sessions.count == 0)
            let all = try SessionCache.read(&entry, key: key, on: connection, maximumEvents: events.count)
            #expect(all?.count == 30)
            #expect(entry.events == events.count)
        }
        var sharded = ShardedReader(
            reader: SessionReader(), topology: ShardTopology(shards: []), coordinator: configuration,
            connectionsPerShard: 1)
        sharded.cache = cache
        let read = try await sharded.read { Exactness.Collected() }.flatMap(\.sessions)
        #expect(read.count == 30)
        // Bounds are not kept either.
        let large = SessionCache(configuration: configuration, maximumEvents: 1_000_000)
        #expect(try await Self.cached(large, SessionReader(since: Date(timeIntervalSince1970: 0))) == nil)
        #expect(try await Self.cached(large, SessionReader())?.count == 30)
    }

    /// A database dropped and made again under the same settings holds traces written after the
    /// cache's watermark (transaction ids go on rising in the cluster) and records no removal of
    /// the old ones: the cache must read it whole again, not add the new traces to the old.
    @Test func aDatabaseMadeAgainUnderTheSameSettingsIsReadWholeAgain() async throws {
        let name = "session_cache_made_again"
        let sessions = try Self.sessions(12, seed: 13)
        let configuration = try await TestDatabase.migrated(name)
        try await Self.write(sessions[0..<6].flatMap { $0 }, to: configuration)
        let cache = SessionCache(configuration: configuration, maximumEvents: 1_000_000)
        #expect(try await Self.cached(cache, SessionReader())?.count == 6)
        #expect(try await TestDatabase.migrated(name) == configuration)
        try await Self.write(sessions[6..<12].flatMap { $0 }, to: configuration)
        let kept = try await Self.cached(cache, SessionReader())
        let fresh = try await Exactness.sessions(configuration, SessionReader(), source: .events, connections: 1)
        #expect(kept?.count == 6)
        // A boolean: a failure prints the test's line, not every session.
        let same = kept == fresh
        #expect(same)
    }

    /// Two groupings read a trace in different snapshots. A session rewritten in between to text
    /// that `==` finds equal (canonically equivalent strings, 0 and -0) but that renders other
    /// bytes must not take the older copy: each grouping would keep it past the rewrite.
    @Test func groupingsShareOnlyIdenticalSessions() {
        let sessionID = UUID()
        func session(step: String, score: Double) -> RecordedSession {
            RecordedSession(
                sessionID: sessionID, userID: "user-1", flowID: "flow", flowVersion: 1,
                context: ["score": .number(score)],
                events: [RecordedEvent(kind: .stepViewed, flowID: "flow", stepID: step, time: 1_000, seq: 1)])
        }
        let older = session(step: "caf\u{E9}", score: 0)
        let rewritten = session(step: "cafe\u{301}", score: 0)
        let signed = session(step: "caf\u{E9}", score: -0.0)
        #expect(older == rewritten && older == signed, "equal as Swift compares them")
        for newer in [rewritten, signed] {
            var kept = SessionCache.Entry()
            kept.put(sessionID, sessions: [older], events: 1, irregular: false)
            var other = SessionCache.Entry()
            other.put(sessionID, sessions: [newer], events: 1, irregular: false)
            other.share(sessionID, with: kept)
            let after = other.sessions(of: sessionID).map(Array.init)
            #expect(after?.count == 1)
            #expect(after?.first?.isIdentical(to: newer) == true)
            #expect(after?.first?.isIdentical(to: older) == false)
        }
        // An identical session is still shared.
        var kept = SessionCache.Entry()
        kept.put(sessionID, sessions: [older], events: 1, irregular: false)
        var other = SessionCache.Entry()
        other.put(sessionID, sessions: [session(step: "caf\u{E9}", score: 0)], events: 1, irregular: false)
        other.share(sessionID, with: kept)
        #expect(other.sessions(of: sessionID)?.first?.isIdentical(to: older) == true)
    }

    /// A trace that gave no sessions has a slot starting at the end of the kept array; compacting
    /// it must not read past the end.
    @Test func aTraceOfNoSessionsSurvivesCompaction() {
        let sessions = (0..<4).map { index in
            RecordedSession(
                sessionID: UUID(), userID: "user-\(index)", flowID: nil, flowVersion: nil, context: [:],
                events: [RecordedEvent(kind: .custom, name: "tap", time: Int64(index), seq: 1)])
        }
        var entry = SessionCache.Entry()
        for session in sessions { entry.put(session.sessionID, sessions: [session], events: 1, irregular: false) }
        let empty = UUID()
        entry.put(empty, sessions: [], events: 0, irregular: false)
        entry.remove(sessions[0].sessionID)
        entry.compactIfNeeded()
        #expect(entry.sessions.count == 3)
        #expect(entry.sessions(of: empty)?.isEmpty == true)
        #expect(entry.sessions(of: sessions[3].sessionID)?.first == sessions[3])
    }

    /// The cache holds every bucket's sessions: it serves a read whose sources take in every
    /// bucket once (one connection, or the buckets split over several), not one of some buckets.
    @Test func theCacheServesOnlyAReadOfEveryBucket() {
        let server = PostgresConfiguration("postgresql://reader@localhost/onboardmetrics")
        let all = Array(0..<SessionBucket.count)
        let split = ShardedReader.split(all, into: 3).map { ShardedReader.Source(configuration: server, buckets: $0) }
        #expect(ShardedReader.coversEveryBucketOnce([ShardedReader.Source(configuration: server, buckets: nil)]))
        #expect(ShardedReader.coversEveryBucketOnce(split))
        #expect(!ShardedReader.coversEveryBucketOnce(Array(split.dropLast())))
        #expect(!ShardedReader.coversEveryBucketOnce(split + [split[0]]))
        #expect(!ShardedReader.coversEveryBucketOnce([ShardedReader.Source(configuration: server, buckets: [0, 64])]))
    }

    /// A background refresh that cannot reach the database keeps what was kept: the watermarks
    /// bring it up to date once the server answers, where dropping it cost the next page a read
    /// of every trace.
    @Test func aRefreshThatCannotConnectKeepsTheSessions() async throws {
        let name = "session_cache_unreachable"
        let sessions = try Self.sessions(5, seed: 19)
        let configuration = try await TestDatabase.migrated(name)
        try await Self.write(sessions.flatMap { $0 }, to: configuration)
        let cache = SessionCache(configuration: configuration, maximumEvents: 1_000_000)
        #expect(try await Self.cached(cache, SessionReader())?.count == 5)
        _ = try await TestDatabase.withConnection(TestDatabase.admin()) {
            try $0.query("DROP DATABASE test_\(name) WITH (FORCE)")
        }
        #expect(throws: PostgresError.self) { try cache.refreshKept() }
        #expect(cache.keptSessions().map(\.count) == [5])
    }
}
