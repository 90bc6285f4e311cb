import Foundation

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsGeneration
@testable import OnboardMetricsPostgres
@testable import OnboardMetricsReader
@testable import OnboardMetricsRendering
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// Random interleavings of everything that changes the events under kept sessions: batches of new
/// events (a few sessions without a session id, cut by time), resends with new stamps, whole
/// sessions deleted, events updated, `TRUNCATE`, traces rebuilt from scratch. What
/// `SessionCacheTests` and `SessionFileStoreTests` check their copies against.
enum RandomChanges {
    /// Writes 200 generated sessions (`generatorSeed`) so, for at least `steps` steps, calling
    /// `check` with the reports' end (a day after the last event) and the step's name after every
    /// deletion, update and truncation, after about half of the other steps, and at the end.
    static func run(
        _ configuration: PostgresConfiguration, generatorSeed: UInt64, randomSeed: UInt64, steps: Int,
        check: (_ now: Date, _ step: String) async throws -> Void
    ) async throws {
        let generator = try SyntheticGenerator(scenario: Scenario.healthStudy, seed: generatorSeed)
        var random = SeededRandom(seed: randomSeed)
        var pending = (0..<200).flatMap { generator.session($0).events }
        for index in pending.indices where index % 41 == 0 {
            pending[index].sessionID = DerivedSessionID.stream(user: pending[index].userID)
        }
        pending.shuffle(using: &random)
        let now = (pending.map(\.occurredAt).max() ?? Date()).addingTimeInterval(86_400)
        var written: [Event] = []
        var step = 0
        // Past the last batch too: then deleted sessions stay deleted (no pending event of theirs
        // brings them back).
        while !pending.isEmpty || step < steps {
            step += 1
            var batch: [Event] = []
            var statement: (String, [String])?
            var rebuild = false
            switch random.next() % 10 {
            case 0..<5:
                let count = min(pending.count, Int(random.next() % 500) + 1)
                batch = Array(pending.prefix(count))
                pending.removeFirst(count)
            case 5:
                batch = written.shuffled(using: &random).prefix(40).map { event in
                    var event = event
                    event.sentAt = event.sentAt?.addingTimeInterval(3)
                    return event
                }
            case 6:
                // Whole sessions deleted: their traces go and nothing replaces them.
                let sessions = Set(written.shuffled(using: &random).prefix(3).map(\.sessionID))
                statement = (
                    "DELETE FROM events WHERE session_id = ANY (string_to_array($1, ',')::uuid[])",
                    sessions.map(\.uuidString)
                )
            case 7:
                statement = (
                    "UPDATE events SET occurred_at = occurred_at + interval '2 hours', step_id = 'moved' "
                        + "WHERE event_id = ANY (string_to_array($1, ',')::uuid[])",
                    written.shuffled(using: &random).prefix(20).map(\.eventID.uuidString)
                )
            case 8 where step % 3 == 0:
                statement = ("TRUNCATE events", [])
            case 9:
                rebuild = true
            default:
                break
            }
            let events = batch
            let change = statement
            let rebuilds = rebuild
            try await TestDatabase.withConnection(configuration) { connection in
                if !events.isEmpty { _ = try EventStore().write(events, on: connection, receivedAt: now) }
                if let (sql, ids) = change {
                    try connection.query(sql, sql.contains("$1") ? [.text(ids.joined(separator: ","))] : [])
                }
                if rebuilds { try TraceBuilder().rebuildAll(on: connection, parts: 2) }
            }
            written += batch
            if statement != nil || random.next() % 2 == 0 { try await check(now, "step \(step)") }
        }
        try await check(now, "the end")
    }
}

extension RandomChanges {
    /// The flow funnel's JSON over the events rows, and over a two-connection reader that
    /// `configure` points at what it keeps (a cache, session files): a report through kept
    /// sessions must equal one from the events byte for byte.
    static func funnelJSON(
        _ configuration: PostgresConfiguration, flow: FlowDefinition, now: Date,
        configure: (inout ShardedReader) -> Void
    ) async throws -> (events: String, kept: String) {
        let options = {
            var options = FunnelOptions()
            options.reportEnd = now
            return options
        }()
        var eventsReader = FunnelReport.reader(options: options)
        eventsReader.source = .events
        let fromEvents = try await ShardedReader(
            reader: eventsReader, sources: [.init(configuration: configuration, buckets: nil)]
        )
        .report { FunnelAggregator(flow: flow, options: options, now: now) }
        var kept = ShardedReader(
            reader: FunnelReport.reader(options: options), topology: ShardTopology(shards: []),
            coordinator: configuration, connectionsPerShard: 2)
        configure(&kept)
        let fromKept = try await kept.report { FunnelAggregator(flow: flow, options: options, now: now) }
        return (try ReportJSON.encode(fromEvents), try ReportJSON.encode(fromKept))
    }
}
