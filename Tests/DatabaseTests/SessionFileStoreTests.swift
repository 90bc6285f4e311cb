import Foundation
import Testing

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsGeneration
@testable import OnboardMetricsPostgres
@testable import OnboardMetricsReader
@testable import OnboardMetricsRendering
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// Reports through a session file (``SessionFileStore``) equal a read of the events after any
/// interleaving of writes, resends, deletes, updates, truncation and rebuilds, with and without
/// bounds, people and shares; the file is kept where only its user may read it, and a damaged one
/// is read again from the traces.
@Suite struct SessionFileStoreTests {
    typealias Exactness = SessionTraceExactnessTests

    /// A folder the store makes itself (so its mode is the store's).
    static func folder() throws -> URL {
        try TestDatabase.temporaryFolder("session-files").appendingPathComponent("sessions")
    }

    /// The sessions read through the store's file, sorted; nil when the file did not serve the read.
    static func throughFile(
        _ configuration: PostgresConfiguration, _ reader: SessionReader, store: SessionFileStore, connections: Int
    ) async throws -> [RecordedSession]? {
        var sharded = ShardedReader(
            reader: reader, topology: ShardTopology(shards: []), coordinator: configuration,
            connectionsPerShard: connections)
        sharded.sessionFiles = store
        guard let consumers = try await sharded.readSessionFile(progress: { _ in }, { Exactness.Collected() }) else {
            return nil
        }
        return Exactness.ordered(consumers.flatMap(\.sessions))
    }

    static func compare(
        _ configuration: PostgresConfiguration, store: SessionFileStore, flow: FlowDefinition, now: Date, step: String
    ) async throws {
        for (position, reader) in Exactness.readers(now: now).enumerated() {
            let connections = position % 2 + 1
            let events = try await Exactness.sessions(configuration, reader, source: .events, connections: 1)
            let read = try await throughFile(configuration, reader, store: store, connections: connections)
            #expect(read != nil, "\(step), reader \(position): the file did not serve the read")
            // Booleans: a failure prints the step, not two thousand sessions.
            let same = read == events
            #expect(read?.count == events.count, "\(step), reader \(position): sessions read through the file")
            #expect(same, "\(step), reader \(position): read through the file")
        }
        let json = try await RandomChanges.funnelJSON(configuration, flow: flow, now: now) { $0.sessionFiles = store }
        #expect(json.events == json.kept, "\(step): funnel report JSON")
    }

    @Test func reportsThroughTheFileEqualAReadOfTheEventsAfterAnyInterleaving() async throws {
        let configuration = try await TestDatabase.migrated("session_files")
        let store = SessionFileStore(directory: try Self.folder())
        let flowURL = TestDatabase.packageRoot.appendingPathComponent("examples/flows/health-study.json")
        let flow = try FlowDefinition.decode(from: Data(contentsOf: flowURL))
        var end = Date()
        try await RandomChanges.run(configuration, generatorSeed: 3, randomSeed: 303, steps: 30) { now, step in
            end = now
            try await Self.compare(configuration, store: store, flow: flow, now: now, step: step)
        }
        let now = end
        // The files are the user's alone.
        let files = try FileManager.default.contentsOfDirectory(atPath: store.directory.path)
        // One a grouping: the readers' and the funnel report's.
        let groupings = Set(
            (Exactness.readers(now: now) + [FunnelReport.reader(options: FunnelOptions())]).map {
                "\($0.closeAfter) \(String(describing: $0.closeFinishedAfter))"
            })
        #expect(files.count(where: { $0.hasSuffix(".sessions") }) == groupings.count, "\(files)")
        #expect(!files.contains { $0.hasSuffix(".tmp") }, "a temporary file was left: \(files)")
        let folderMode = try FileManager.default.attributesOfItem(atPath: store.directory.path)[.posixPermissions]
        #expect(folderMode as? Int == 0o700)
        for file in files {
            let mode = try FileManager.default.attributesOfItem(
                atPath: store.directory.appendingPathComponent(file).path)[.posixPermissions]
            #expect(mode as? Int == 0o600, "\(file)")
        }
    }

    /// A file damaged on disk is said, read again from the traces, and written anew; the report
    /// is the same.
    @Test func aDamagedFileIsReadAgainFromTheTraces() async throws {
        let configuration = try await TestDatabase.migrated("session_files_damaged")
        let events = try SessionCacheTests.sessions(30, seed: 11).flatMap { $0 }
        try await SessionCacheTests.write(events, to: configuration)
        let warnings = LockedBox<[String]>([])
        let store = SessionFileStore(directory: try Self.folder()) { line in warnings.withLock { $0.append(line) } }
        let reader = SessionReader()
        let expected = try await Exactness.sessions(configuration, reader, source: .events, connections: 1)
        #expect(try await Self.throughFile(configuration, reader, store: store, connections: 2) == expected)
        let name = try #require(
            try FileManager.default.contentsOfDirectory(atPath: store.directory.path).first {
                $0.hasSuffix(".sessions")
            })
        let url = store.directory.appendingPathComponent(name)
        let written = try Data(contentsOf: url)
        let closeAfter = DurationText.microseconds(reader.closeAfter)
        // Inside the records, the head and tail whole: the first record's length and what
        // follows, a run of 0xFF, is no varint.
        let records = try SessionFile(contentsOf: url, closeAfter: closeAfter, closeFinishedAfter: nil).storedRecords
        var inside = written
        inside.replaceSubrange(
            (records.lowerBound + 16)..<(records.lowerBound + 56), with: Data(repeating: 0xFF, count: 40))
        for damage in [written.prefix(written.count - 3), Data("not a session file".utf8), inside] {
            try damage.write(to: url)
            // Its own mode again: a file others may read is refused before its bytes are.
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
            var read = try await Self.throughFile(configuration, reader, store: store, connections: 2)
            #expect((read == nil) == (damage == inside), "only damage inside the records is met while reading them")
            if read == nil {
                // Damage met while reading the records: the report read the traces (the caller's
                // fallback), the file went, and the next report writes it anew.
                #expect(!FileManager.default.fileExists(atPath: url.path), "the damaged file stayed")
                read = try await Self.throughFile(configuration, reader, store: store, connections: 2)
            }
            #expect(read == expected)
            let again = try SessionFile(contentsOf: url, closeAfter: closeAfter, closeFinishedAfter: nil)
            #expect(again.summary.events == events.count, "the file was not written again whole")
        }
        let lines = warnings.withLock { $0 }
        // One a damage, and for the damage inside the records a second when the refresh found
        // traces to write again (read twice while a transaction held the watermark back)
        // and met it while copying the records.
        #expect((3...4).contains(lines.count), "\(lines.joined(separator: " | "))")
        #expect(lines.last?.contains("this report reads the session traces") == true, "\(lines)")
        #expect(lines.allSatisfy { !$0.contains("only they may") }, "\(lines)")
        // A file others may read is not read.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
        #expect(try await Self.throughFile(configuration, reader, store: store, connections: 2) == expected)
        #expect(warnings.withLock { $0 }.last?.contains("only they may read and write") == true)
    }

    /// A few traces written since the file's watermark are left unread by its refresh (the file
    /// is not written) and read beside it, in the refresh's snapshot: the reads still equal the
    /// events', with a session removed at the same time; past 2 % they are read into the file.
    @Test func aFewNewTracesAreReadBesideTheFile() async throws {
        let configuration = try await TestDatabase.migrated("session_files_deferred")
        let sessions = try SessionCacheTests.sessions(203, seed: 17)
        try await SessionCacheTests.write(sessions.prefix(200).flatMap { $0 }, to: configuration)
        let store = SessionFileStore(directory: try Self.folder())
        let flowURL = TestDatabase.packageRoot.appendingPathComponent("examples/flows/health-study.json")
        let flow = try FlowDefinition.decode(from: Data(contentsOf: flowURL))
        let now = (sessions.flatMap { $0 }.map(\.occurredAt).max() ?? Date()).addingTimeInterval(86_400)
        try await Self.compare(configuration, store: store, flow: flow, now: now, step: "every trace")
        let reader = SessionReader()
        let closeAfter = DurationText.microseconds(reader.closeAfter)
        let closeFinishedAfter = reader.closeFinishedAfter.map { DurationText.microseconds($0) }
        // The file's watermark is this database's oldest running transaction when it was read
        // (other databases' do not count: `TraceChanges.watermarkQuery`). Wait until it has passed
        // the traces just built, and bring the file up to it.
        let newest = try #require(try await SessionCacheTests.watermarkAndNewestTrace(configuration).newest)
        let passed = try await SessionCacheTests.watermark(configuration, passing: newest, within: 60) > newest
        #expect(passed, "this database's oldest transaction stayed below the traces for a minute")
        _ = try await BlockingIO.run {
            try store.refreshed(
                configuration: configuration, closeAfter: closeAfter, closeFinishedAfter: closeFinishedAfter,
                buildIfMissing: true, parts: 1)
        }
        // One new session and one with an event more: about 1 % of the file; and one removed.
        var later = sessions[200]
        later.append(contentsOf: sessions[201].prefix(1))
        try await SessionCacheTests.write(later, to: configuration)
        let removed = sessions[5][0].sessionID
        try await TestDatabase.withConnection(configuration) { connection in
            try connection.query("DELETE FROM events WHERE session_id = $1", [.uuid(removed)])
        }
        let refreshed = try await BlockingIO.run {
            try store.refreshed(
                configuration: configuration, closeAfter: closeAfter, closeFinishedAfter: closeFinishedAfter,
                buildIfMissing: true, parts: 1)
        }
        #expect(Set(refreshed?.file.deferred ?? []) == Set(later.map(\.sessionID)))
        #expect(refreshed?.connection != nil, "the refresh's connection is handed on for the traces")
        #expect(refreshed?.file.isWorthWriting == false)
        try await Self.compare(configuration, store: store, flow: flow, now: now, step: "two traces left unread")
        // A bound among the new session's events: its trace is cut there, as a read of the events.
        let times = later.map(\.occurredAt).sorted()
        let bounded = SessionReader(since: nil, until: times[times.count / 2])
        let boundedEvents = try await Exactness.sessions(configuration, bounded, source: .events, connections: 1)
        let boundedFile = try await Self.throughFile(configuration, bounded, store: store, connections: 2)
        // Booleans: a failure prints the step, not two hundred sessions.
        let same = boundedFile == boundedEvents
        #expect(boundedFile?.count == boundedEvents.count, "a bound among the traces left unread: sessions")
        #expect(same, "a bound among the traces left unread")
        // Past 2 % the traces are read into the file again (and it is written).
        try await SessionCacheTests.write(sessions[202], to: configuration)
        try await SessionCacheTests.write(
            try SessionCacheTests.sessions(8, seed: 18).flatMap { $0 }, to: configuration)
        let more = try await BlockingIO.run {
            try store.refreshed(
                configuration: configuration, closeAfter: closeAfter, closeFinishedAfter: closeFinishedAfter,
                buildIfMissing: true, parts: 1)
        }
        #expect(more?.file.deferred.isEmpty == true)
        if let more, let url = Optional(more.url) {
            let written = try SessionFile(
                contentsOf: url, closeAfter: closeAfter, closeFinishedAfter: closeFinishedAfter)
            #expect(written.watermark == more.file.watermark, "the file was written with the refresh's watermark")
            #expect(written.watermark != refreshed?.file.watermark)
        }
        try await Self.compare(configuration, store: store, flow: flow, now: now, step: "read into the file")
    }

    /// A report with `--since` does not write a file that is not there (it would read every
    /// trace); one with `--until` alone does, and then `--since` uses it. A folder that others
    /// may write is not used.
    @Test func whichReadsWriteAFileAndWhichFoldersAreUsed() async throws {
        let configuration = try await TestDatabase.migrated("session_files_bounds")
        let events = try SessionCacheTests.sessions(40, seed: 13).flatMap { $0 }
        try await SessionCacheTests.write(events, to: configuration)
        let times = events.map(\.occurredAt).sorted()
        let middle = times[times.count / 2]
        let store = SessionFileStore(directory: try Self.folder())
        let since = SessionReader(since: middle, until: nil)
        #expect(try await Self.throughFile(configuration, since, store: store, connections: 2) == nil)
        #expect(!FileManager.default.fileExists(atPath: store.directory.path), "a --since read wrote a file")
        let until = SessionReader(since: nil, until: middle)
        let expected = try await Exactness.sessions(configuration, until, source: .events, connections: 1)
        #expect(try await Self.throughFile(configuration, until, store: store, connections: 2) == expected)
        let fromEvents = try await Exactness.sessions(configuration, since, source: .events, connections: 1)
        #expect(try await Self.throughFile(configuration, since, store: store, connections: 2) == fromEvents)
        // Others may write the folder: not used, and said.
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: store.directory.path)
        let warnings = LockedBox<[String]>([])
        let open = SessionFileStore(directory: store.directory) { line in warnings.withLock { $0.append(line) } }
        #expect(try await Self.throughFile(configuration, SessionReader(), store: open, connections: 1) == nil)
        #expect(warnings.withLock { $0 }.contains { $0.contains("only they may write") })
    }
}
