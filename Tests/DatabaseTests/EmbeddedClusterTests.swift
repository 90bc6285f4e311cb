import Foundation
import Testing

@testable import OnboardMetricsPostgres
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

@Suite struct EmbeddedClusterTests {
    @Test func createsStartsServesAndStops() async throws {
        // Fails, not skips, without the test harness: it names how to run database tests.
        _ = try TestDatabase.adminURL()
        let folder = try TestDatabase.temporaryFolder("embedded")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cluster = EmbeddedCluster(dataDirectory: folder.appendingPathComponent("postgres").path)
        let states = try await BlockingIO.run { () -> [EmbeddedCluster.State] in
            var states = [try cluster.state()]
            try cluster.start()
            states.append(try cluster.state())
            let connection = try PostgresConnection(configuration: cluster.configuration)
            let database = try connection.query("SELECT current_database() AS d").first?["d"].string
            connection.close()
            states.append(database == "onboardmetrics" ? .running : .notCreated)
            try cluster.start()  // starting a running cluster is harmless
            try cluster.stop()
            states.append(try cluster.state())
            return states
        }
        #expect(states == [.notCreated, .running, .running, .stopped])
    }

    @Test func missingServerProgramsNameThePackage() {
        let error = #expect(throws: EmbeddedClusterError.self) {
            try ServerPrograms.locate(environment: ["PATH": "/nonexistent"], searchRoots: [])
        }
        #expect(error?.code == .programsMissing)
        #expect(error?.message.contains("apt-get install postgresql") == true)
    }

    @Test func longDataPathsGetASocketFolderThatFits() {
        let long = "/tmp/" + String(repeating: "deep-folder/", count: 12) + "postgres"
        let cluster = EmbeddedCluster(dataDirectory: long)
        #expect(cluster.socketDirectory.hasPrefix("/tmp/onboardmetrics-"))
        #expect((cluster.socketDirectory + "/.s.PGSQL.5432").utf8.count < 108)
        #expect(EmbeddedCluster(dataDirectory: "/tmp/short/postgres").socketDirectory == "/tmp/short/postgres")
    }
}
