import Foundation
import Testing

@testable import OnboardMetricsPostgres
@testable import OnboardMetricsReader
@testable import OnboardMetricsStore

/// A spare connection is taken once, only for its own configuration, and is the very connection
/// (its session, its open transaction) the giver left; a deployment of one server leaves one, the
/// dashboard's kept sessions none.
@Suite struct SpareConnectionTests {
    @Test func takenOnceForItsOwnConfiguration() async throws {
        let configuration = try await TestDatabase.fresh("spare_connection")
        let other = PostgresConfiguration(configuration.connectionString, overrides: ["application_name": "other"])
        let (backend, taken) = try await BlockingIO.run { () -> (Int?, [Int?]) in
            let connection = try PostgresConnection(configuration: configuration)
            let backend = try connection.query("SELECT pg_backend_pid()::int8").first?[0].int
            // Left inside a transaction: the taker finds it open.
            try connection.query("BEGIN")
            try connection.query("CREATE TEMPORARY TABLE left_here (n int)")
            let spare = SpareConnection(connection, configuration: configuration)
            var taken: [Int?] = []
            taken.append(try spare.take(for: other).map { _ in -1 })
            if let first = spare.take(for: configuration) {
                defer { first.close() }
                taken.append(try first.query("SELECT pg_backend_pid()::int8").first?[0].int)
                taken.append(try first.query("SELECT count(*)::int8 FROM left_here").first?[0].int)
                try first.query("COMMIT")
            }
            taken.append(try spare.take(for: configuration).map { _ in -1 })
            return (backend, taken)
        }
        #expect(backend != nil)
        #expect(taken == [nil, backend, 0, nil], "another configuration, the same backend and transaction, then none")
    }

    @Test func aDeploymentLeavesOneOnlyWhenAsked() async throws {
        let configuration = try await TestDatabase.migrated("spare_deployment")
        let kept = try await ShardedReader.deployment(
            configuration: configuration, reader: SessionReader(), connections: 1)
        #expect(kept.reader.spare?.configuration == configuration)
        let none = try await ShardedReader.deployment(
            configuration: configuration, reader: SessionReader(), connections: 1, keepConnection: false)
        #expect(none.reader.spare == nil)
    }
}
