import Foundation
import OnboardMetricsServerTesting
import OnboardMetricsTesting
import Testing

@testable import OnboardMetricsSDK
@testable import OnboardMetricsStatistics
@testable import OnboardMetricsStore

/// The testing product's throwaway PostgreSQL, as a backend's own test suite would use it: a
/// cluster of its own with the schema, a session recorded through the recorder, the report read
/// back, and nothing left behind.
@Suite struct ThrowawayDatabaseTests {
    @Test func aThrowawayClusterTakesEventsAndIsRemovedAfterwards() async throws {
        let database = try await ThrowawayDatabase.start(
            migrations: Migrator(directory: TestDatabase.migrationsDirectory))
        let folder = database.folder
        do {
            var configuration = EventRecorder.Configuration(database: database.configuration)
            configuration.spoolDirectory = folder.appendingPathComponent("spool").path
            let recorder = try EventRecorder(configuration: configuration).started()
            let flow = try FlowDefinition.decode(
                from: Data(
                    contentsOf: TestDatabase.packageRoot.appendingPathComponent("examples/flows/health-study.json")))
            // The same session goes to the database and to the in-memory sink.
            let sink = RecordingSink()
            for target in [recorder as any EventSink, sink] {
                let session = try OnboardingSession.start(
                    flow: flow, user: "u1", context: ["healthDataAvailable": false], sink: target,
                    random: Xoshiro256StarStar(seed: 9))
                try session.next()
                try session.next()
                try session.skip()
            }
            #expect(await recorder.flush())
            await recorder.shutdown()
            let stored = try await TestDatabase.withConnection(database.configuration) { connection in
                try connection.query("SELECT kind, step_id FROM events ORDER BY seq").map {
                    [$0["kind"].string, $0["step_id"].string].compactMap { $0 }.joined(separator: " ")
                }
            }
            #expect(stored == sink.transcript)
            #expect(stored.count == 8)
        }
        database.stop()
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }
}
