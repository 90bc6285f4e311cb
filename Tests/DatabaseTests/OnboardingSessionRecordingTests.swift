import Foundation
import Testing

@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

@Suite struct OnboardingSessionRecordingTests {
    @Test func sessionsRecordedThroughTheRecorderLandInPostgres() async throws {
        let configuration = try await TestDatabase.migrated("session_recording")
        var recorderConfiguration = EventRecorder.Configuration(database: configuration)
        recorderConfiguration.spoolDirectory = nil
        let recorder = try EventRecorder(configuration: recorderConfiguration).started()
        let flowURL = TestDatabase.packageRoot.appendingPathComponent("examples/flows/health-study.json")
        let flow = try FlowDefinition.decode(from: Data(contentsOf: flowURL))
        var ids: [UUID] = []
        for user in 0..<50 {
            let session = try OnboardingSession.start(
                flow: flow, user: "user-\(user)",
                context: ["healthDataAvailable": .bool(user % 2 == 0), "platform": "ios"],
                sink: recorder)
            ids.append(session.sessionID)
            while session.status == .running {
                if session.currentStep?.skippable == true { try session.skip() } else { try session.next() }
            }
        }
        #expect(await recorder.flush())
        _ = await recorder.shutdown()
        let rows = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query(
                """
                SELECT (SELECT count(*) FROM sessions) AS sessions,
                       (SELECT count(*) FROM events WHERE kind = 'flow_completed') AS completed,
                       (SELECT count(DISTINCT session_id) FROM events WHERE step_id = 'health-data') AS health,
                       (SELECT count(*) FROM sessions WHERE context->>'platform' = 'ios') AS ios
                """
            ).first
        }
        #expect(rows?["sessions"].int == 50)
        #expect(rows?["completed"].int == 50)
        #expect(rows?["health"].int == 25)
        #expect(rows?["ios"].int == 50)
    }
}
