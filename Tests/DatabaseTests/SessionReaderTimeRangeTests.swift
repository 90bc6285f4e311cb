import Foundation
import Testing

@testable import OnboardMetricsGeneration
@testable import OnboardMetricsPostgres
@testable import OnboardMetricsReader
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// PostgreSQL takes an `occurred_at` of `infinity`, or of the year 294,276, which a row written by
/// another tool may hold. Shifting such a time to 1970 overflowed and stopped the process; a
/// read now fails with an error naming the event, from the events rows and from the traces alike,
/// and a time within range reads as before.
@Suite struct SessionReaderTimeRangeTests {
    @Test(arguments: ["infinity", "-infinity", "294000-01-01 00:00:00+00", "80000-01-01 00:00:00+00"])
    func anOccurredAtOutOfRangeIsAnErrorNamingTheEvent(value: String) async throws {
        let configuration = try await TestDatabase.migrated("reader_time_range_\(value.prefix(3))")
        let events = try SessionCacheTests.sessions(3, seed: 17).flatMap { $0 }
        try await SessionCacheTests.write(events, to: configuration)
        let far = events[4].eventID
        _ = try await TestDatabase.withConnection(configuration) {
            try $0.query(
                "UPDATE events SET occurred_at = $1::timestamptz WHERE event_id = $2", [.text(value), .uuid(far)])
        }
        for source in [SessionSource.events, .traces] {
            await #expect(throws: PostgresError.self, "\(value) from \(source)") {
                _ = try await SessionTraceExactnessTests.sessions(
                    configuration, SessionReader(), source: source, connections: 2)
            }
            do {
                _ = try await SessionTraceExactnessTests.sessions(
                    configuration, SessionReader(), source: source, connections: 1)
            } catch let error as PostgresError {
                #expect(error.message.contains(far.uuidString.lowercased()), "\(error.message)")
            }
        }
        // Back in range, both read the same sessions.
        _ = try await TestDatabase.withConnection(configuration) {
            try $0.query("UPDATE events SET occurred_at = '2026-01-02 03:04:05+00' WHERE event_id = $1", [.uuid(far)])
        }
        let fromEvents = try await SessionTraceExactnessTests.sessions(
            configuration, SessionReader(), source: .events, connections: 1)
        let fromTraces = try await SessionTraceExactnessTests.sessions(
            configuration, SessionReader(), source: .traces, connections: 1)
        #expect(fromEvents.map(\.events.count).reduce(0, +) == events.count)
        #expect(fromEvents == fromTraces)
    }
}
