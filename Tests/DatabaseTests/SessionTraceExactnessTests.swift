import Foundation
import Testing

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsGeneration
@testable import OnboardMetricsPostgres
@testable import OnboardMetricsReader
@testable import OnboardMetricsRendering
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// Sessions and reports read from the session traces equal those replayed from the events, after
/// any interleaving of ingest batches (out of order within a batch, late events held back),
/// resends, deletes, updates, truncation and reports (each report brings the traces up to date).
@Suite struct SessionTraceExactnessTests {
    struct Collected: SessionConsumer {
        var sessions: [RecordedSession] = []
        mutating func add(_ session: RecordedSession) throws { sessions.append(session) }
    }

    /// The sessions of a read, in an order that does not depend on the read's.
    static func sessions(
        _ configuration: PostgresConfiguration, _ reader: SessionReader, source: SessionSource, connections: Int
    ) async throws -> [RecordedSession] {
        var reader = reader
        reader.source = source
        let sharded = ShardedReader(
            reader: reader, topology: ShardTopology(shards: []), coordinator: configuration,
            connectionsPerShard: connections)
        return ordered(try await sharded.read { Collected() }.flatMap(\.sessions))
    }

    /// `sessions` by id, then start: an order that does not depend on a read's.
    static func ordered(_ sessions: [RecordedSession]) -> [RecordedSession] {
        sessions.sorted {
            ($0.sessionID.uuidString, $0.events.first?.time ?? 0) < (
                $1.sessionID.uuidString, $1.events.first?.time ?? 0
            )
        }
    }

    /// The readers reports use: default closing, funnel-style early closing of finished sessions,
    /// a time range, and people as users.
    static func readers(now: Date) -> [SessionReader] {
        var people = SessionReader(closeAfter: 3_600)
        people.people = PersonLinks()
        return [
            SessionReader(),
            SessionReader(closeAfter: 8 * 86_400, closeFinishedAfter: 3_600),
            SessionReader(since: now.addingTimeInterval(-20 * 86_400), until: now.addingTimeInterval(-5 * 86_400)),
            SessionReader(closeAfter: 600),
            people,
        ]
    }

    static func compare(_ configuration: PostgresConfiguration, flow: FlowDefinition, now: Date, step: String)
        async throws
    {
        for (position, reader) in readers(now: now).enumerated() {
            for connections in [1, 3] {
                let events = try await sessions(configuration, reader, source: .events, connections: connections)
                let traces = try await sessions(configuration, reader, source: .traces, connections: connections)
                #expect(events.count == traces.count, "\(step), reader \(position), \(connections) connections")
                #expect(events == traces, "\(step), reader \(position), \(connections) connections")
            }
        }
        let options = {
            var options = FunnelOptions()
            options.reportEnd = now
            return options
        }()
        var eventsReader = FunnelReport.reader(options: options)
        eventsReader.source = .events
        var tracesReader = eventsReader
        tracesReader.source = .traces
        let fromEvents = try await ShardedReader(
            reader: eventsReader, sources: [.init(configuration: configuration, buckets: nil)]
        )
        .report { FunnelAggregator(flow: flow, options: options, now: now) }
        let fromTraces = try await ShardedReader(
            reader: tracesReader, sources: [.init(configuration: configuration, buckets: nil)]
        )
        .report { FunnelAggregator(flow: flow, options: options, now: now) }
        #expect(try ReportJSON.encode(fromEvents) == ReportJSON.encode(fromTraces), "\(step): funnel report JSON")
    }

    /// A stored session whose id equals one cut from a user's stream (a Segment or PostHog key is
    /// taken as the session when it parses as a UUID) is a session of its own from the events as
    /// from the traces: the events' grouper kept both under one id and merged them, where the
    /// traces, one for each id, made two.
    @Test func aStoredSessionWithTheIDOfADerivedOneIsASessionOfItsOwn() async throws {
        let configuration = try await TestDatabase.migrated("traces_derived_collision")
        let generator = try SyntheticGenerator(scenario: Scenario.healthStudy, seed: 23)
        let streamed = generator.session(0).events.map { event in
            var event = event
            event.sessionID = DerivedSessionID.stream(user: event.userID)
            return event
        }
        let first = try #require(streamed.compactMap { $0.eventID.version7Milliseconds }.min())
        let derived = DerivedSessionID.session(stream: streamed[0].sessionID, start: first * 1000)
        // The same events again under the derived id, each a millisecond after its original.
        let stored = streamed.enumerated().map { position, event in
            var copy = event
            copy.sessionID = derived
            copy.eventID = StableID.eventID(
                milliseconds: (event.eventID.version7Milliseconds ?? 0) + 1, content: Array("copy \(position)".utf8))
            return copy
        }
        try await TestDatabase.withConnection(configuration) {
            _ = try EventStore().write(streamed + stored, on: $0, receivedAt: Date())
        }
        let fromEvents = try await Self.sessions(configuration, SessionReader(), source: .events, connections: 1)
        let fromTraces = try await Self.sessions(configuration, SessionReader(), source: .traces, connections: 1)
        #expect(fromEvents.filter { $0.sessionID == derived }.map(\.events.count) == [streamed.count, stored.count])
        let same = fromEvents == fromTraces
        #expect(same)
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func readsFromTracesEqualReplaysOfTheEventsAfterAnyInterleaving(seed: UInt64) async throws {
        let configuration = try await TestDatabase.migrated("traces_exact_\(seed)")
        let generator = try SyntheticGenerator(scenario: Scenario.healthStudy, seed: seed)
        let flowURL = TestDatabase.packageRoot.appendingPathComponent("examples/flows/health-study.json")
        let flow = try FlowDefinition.decode(from: Data(contentsOf: flowURL))
        var random = SeededRandom(seed: seed)
        var pending = (0..<240).flatMap { generator.session($0).events }
        // A few users' events without a session: one stream each, cut into sessions by inactivity.
        for index in pending.indices where index % 37 == 0 {
            pending[index].sessionID = DerivedSessionID.stream(user: pending[index].userID)
        }
        pending.shuffle(using: &random)
        let now = (pending.map(\.occurredAt).max() ?? Date()).addingTimeInterval(86_400)
        var written: [Event] = []
        var held: [Event] = []
        var step = 0
        while !pending.isEmpty || !held.isEmpty {
            step += 1
            let statement: (String, [String])?
            var batch: [Event] = []
            switch random.next() % 10 {
            case 0..<5:
                // A batch in no particular order; some of its events come late, in a later batch.
                let count = min(pending.count, Int(random.next() % 600) + 1)
                batch = Array(pending.prefix(count)) + held
                pending.removeFirst(count)
                batch.shuffle(using: &random)
                let late = Int(random.next() % UInt64(min(20, batch.count) + 1))
                held = Array(batch.suffix(late))
                batch.removeLast(late)
                if pending.isEmpty {
                    batch += held
                    held = []
                }
                statement = nil
            case 5:
                // Resends of stored (or deleted) events, with new stamps.
                batch = written.shuffled(using: &random).prefix(50).map { event in
                    var event = event
                    event.sentAt = event.sentAt?.addingTimeInterval(3)
                    return event
                }
                statement = nil
            case 6:
                statement = (
                    "DELETE FROM events WHERE event_id = ANY (string_to_array($1, ',')::uuid[])",
                    written.shuffled(using: &random).prefix(30).map(\.eventID.uuidString)
                )
            case 7:
                statement = (
                    "UPDATE events SET occurred_at = occurred_at + interval '2 hours', step_id = 'moved' "
                        + "WHERE event_id = ANY (string_to_array($1, ',')::uuid[])",
                    written.shuffled(using: &random).prefix(20).map(\.eventID.uuidString)
                )
            case 8 where step % 4 == 0:
                statement = ("TRUNCATE events", [])
            default:
                statement = nil
            }
            let events = batch
            try await TestDatabase.withConnection(configuration) { connection in
                if !events.isEmpty { _ = try EventStore().write(events, on: connection, receivedAt: now) }
                if let (sql, ids) = statement {
                    try connection.query(sql, sql.contains("$1") ? [.text(ids.joined(separator: ","))] : [])
                }
            }
            written += batch
            if random.next() % 3 == 0 {
                try await Self.compare(configuration, flow: flow, now: now, step: "step \(step)")
            }
        }
        try await Self.compare(configuration, flow: flow, now: now, step: "the end")
        let verified = try await TestDatabase.withConnection(configuration) { try TraceVerifier().verify(on: $0) }
        #expect(verified.isConsistent)
        #expect(verified.pending == 0)
        #expect(verified.sessions > 50)
    }
}
