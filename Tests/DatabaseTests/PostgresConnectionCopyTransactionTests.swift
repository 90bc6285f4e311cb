import Foundation
import Testing

@testable import OnboardMetricsPostgres

/// `copyIn(_:begin:commit:_:)`: a COPY that begins or commits a transaction of its own in the same
/// round trip. Another connection checks what is committed, and libpq's transaction status that no
/// transaction was left open.
@Suite struct PostgresConnectionCopyTransactionTests {
    static func writeIDs(_ ids: [Int32]) -> (inout BinaryCopyWriter) throws -> Void {
        { writer in
            for id in ids {
                writer.beginRow(fieldCount: 1)
                writer.write(int32: id)
                try writer.endRow()
            }
        }
    }

    static func count(_ table: String, _ configuration: PostgresConfiguration) async throws -> Int? {
        try await TestDatabase.withConnection(configuration) { connection in
            try connection.query("SELECT count(*)::int8 AS n FROM \(table)").first?["n"].int
        }
    }

    /// No transaction open, and the connection answers.
    static func noTransactionOpen(_ connection: PostgresConnection) throws -> Bool {
        let answers = try connection.query("SELECT 1 AS one").first?["one"].int == 1
        return !connection.isInTransaction && answers
    }

    @Test func oneCopyBeginsAndCommitsItsOwnTransaction() async throws {
        let configuration = try await TestDatabase.fresh("copy_tx_one")
        let (stored, idle) = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query("CREATE TABLE t (id int4 PRIMARY KEY)")
            let stored = try connection.copyIn(
                "COPY t FROM STDIN (FORMAT binary)", begin: true, commit: true, Self.writeIDs([1, 2, 3]))
            return (stored, try Self.noTransactionOpen(connection))
        }
        #expect(stored == 3)
        #expect(idle)
        #expect(try await Self.count("t", configuration) == 3)
    }

    @Test func twoCopiesShareOneTransactionAndCommitTogether() async throws {
        let configuration = try await TestDatabase.fresh("copy_tx_two")
        let (first, seenBetween, second) = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query("CREATE TABLE a (id int4 PRIMARY KEY)")
            try connection.query("CREATE TABLE b (id int4 PRIMARY KEY)")
            let other = try PostgresConnection(configuration: configuration)
            defer { other.close() }
            let first = try connection.copyIn(
                "COPY a FROM STDIN (FORMAT binary)", begin: true, commit: false, Self.writeIDs([1, 2]))
            // Not committed yet: another connection sees nothing.
            let seenBetween = try other.query("SELECT count(*)::int8 AS n FROM a").first?["n"].int
            let second = try connection.copyIn(
                "COPY b FROM STDIN (FORMAT binary)", begin: false, commit: true, Self.writeIDs([7]))
            return (first, seenBetween, second)
        }
        #expect(first == 2 && second == 1)
        #expect(seenBetween == 0)
        #expect(try await Self.count("a", configuration) == 2)
        #expect(try await Self.count("b", configuration) == 1)
    }

    @Test func aFailureInTheSecondCopyRollsBackBothAndLeavesNoTransaction() async throws {
        let configuration = try await TestDatabase.fresh("copy_tx_fail")
        let (sqlState, idle, again) = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query("CREATE TABLE a (id int4 PRIMARY KEY)")
            try connection.query("CREATE TABLE b (id int4 PRIMARY KEY)")
            try connection.copyIn("COPY a FROM STDIN (FORMAT binary)", begin: true, commit: false, Self.writeIDs([1]))
            var sqlState: String?
            do {
                try connection.copyIn(
                    "COPY b FROM STDIN (FORMAT binary)", begin: false, commit: true, Self.writeIDs([5, 5]))
            } catch let error as PostgresError {
                sqlState = error.sqlState
            }
            let idle = try Self.noTransactionOpen(connection)
            // The connection goes on: the same rows again, without the repeat, land.
            let again = try connection.copyIn(
                "COPY a FROM STDIN (FORMAT binary)", begin: true, commit: true, Self.writeIDs([1, 2]))
            return (sqlState, idle, again)
        }
        #expect(sqlState == "23505")
        #expect(idle)
        #expect(again == 2)
        #expect(try await Self.count("a", configuration) == 2)
        #expect(try await Self.count("b", configuration) == 0)
    }

    @Test func aCallerThatThrowsMidCopyStoresNothingAndLeavesNoTransaction() async throws {
        let configuration = try await TestDatabase.fresh("copy_tx_throw")
        struct Deliberate: Error {}
        let (caught, idle) = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query("CREATE TABLE t (id int4)")
            var caught = false
            do {
                try connection.copyIn("COPY t FROM STDIN (FORMAT binary)", begin: true, commit: true) { writer in
                    try Self.writeIDs(Array(0..<1_000))(&writer)
                    throw Deliberate()
                }
            } catch is Deliberate {
                caught = true
            }
            return (caught, try Self.noTransactionOpen(connection))
        }
        #expect(caught)
        #expect(idle)
        #expect(try await Self.count("t", configuration) == 0)
    }
}
