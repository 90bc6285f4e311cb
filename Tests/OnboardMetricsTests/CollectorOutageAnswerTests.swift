import Foundation
import Logging
import Testing

@testable import OnboardMetricsCollector
@testable import OnboardMetricsPostgres
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// With PostgreSQL unreachable, an unauthenticated caller learns nothing about the database
/// (issue 14, defect 3).
@Suite struct CollectorOutageAnswerTests {
    @Test func the503NamesNoConnectionSettings() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-socket-\(UUID())").path
        let database = PostgresConfiguration(
            "postgresql://collector_user:hunter2secret@/analytics_db?host=\(folder)&port=5999&connect_timeout=2")
        var configuration = EventRecorder.Configuration(database: database)
        configuration.spoolDirectory = nil
        configuration.logger.logLevel = .critical
        let recorder = try EventRecorder(configuration: configuration).started()
        let collector = Collector(
            configuration: Collector.Configuration(), recorder: recorder, keys: AppKeyCache(database: database))
        guard case .refused(let answer) = await collector.authorize("Bearer om_somekey") else {
            Issue.record("an unreachable database must refuse the request")
            return
        }
        _ = await recorder.shutdown()
        #expect(answer.status == 503)
        let body = String(decoding: answer.body, as: UTF8.self)
        for secret in ["collector_user", "hunter2secret", "analytics_db", folder, "5999", "libpq", "socket"] {
            #expect(!body.contains(secret), "the 503 body reveals \(secret): \(body)")
        }
        #expect(body.contains("unavailable"))
    }
}
