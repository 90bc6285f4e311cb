import Foundation
import Testing

@testable import OnboardMetricsPostgres
@testable import OnboardMetricsRendering
@testable import OnboardMetricsSDK

@Suite struct EventSchemaTests {
    /// A UUIDv7 whose timestamp is `date` (the rest of its bits fixed by `tail`).
    static func uuidv7(_ date: Date, tail: UInt8) -> UUID {
        let milliseconds = UInt64(date.timeIntervalSince1970 * 1000)
        var bytes = [UInt8](repeating: tail, count: 16)
        for index in 0..<6 { bytes[index] = UInt8((milliseconds >> (8 * UInt64(5 - index))) & 0xFF) }
        bytes[6] = 0x70 | (tail & 0x0F)
        bytes[8] = 0x80 | (tail & 0x3F)
        return bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
    }

    static func insert(_ connection: PostgresConnection, id: UUID, at date: Date, session: UUID = UUID()) throws {
        try connection.query(
            """
            INSERT INTO events (event_id, session_id, user_id, seq, kind, occurred_at, properties)
            VALUES ($1, $2, 'u1', 0, 'session_started', $3, '{}')
            """,
            [.uuid(id), .uuid(session), .timestamp(date)])
    }

    @Test func eventsOfAMonthWithoutPartitionMoveIntoItsNewPartition() async throws {
        let configuration = try await TestDatabase.migrated("schema_partitions")
        let future = Date(timeIntervalSince1970: 4_102_444_800 + 86_400 * 40)  // February 2100
        let partitionOf = try await TestDatabase.withConnection(configuration) { connection in
            let id = Self.uuidv7(future, tail: 0x11)
            try Self.insert(connection, id: id, at: future)
            let before = try connection.query(
                "SELECT tableoid::regclass::text AS p FROM events WHERE event_id = $1", [.uuid(id)])
            try connection.query("SELECT onboardmetrics_ensure_partitions($1, $1)", [.timestamp(future)])
            let after = try connection.query(
                "SELECT tableoid::regclass::text AS p FROM events WHERE event_id = $1", [.uuid(id)])
            return (before.first?["p"].string, after.first?["p"].string)
        }
        #expect(partitionOf.0 == "events_default")
        #expect(partitionOf.1 == "events_2100_02")
    }

    /// The key is (event_id, session_id) since migration 0003 (docs/SCALING.md: the distribution
    /// column is in every key): a repeated event — same id, same session — is refused across the
    /// whole table; one id reused by another session is a different row.
    @Test func eventIsUniqueByIDAndSessionAcrossTheWholeTable() async throws {
        let configuration = try await TestDatabase.migrated("schema_unique")
        let session = UUID()
        let id = Self.uuidv7(Date(), tail: 0x22)
        let error = await #expect(throws: PostgresError.self) {
            try await TestDatabase.withConnection(configuration) { connection in
                try Self.insert(connection, id: id, at: Date(), session: session)
                try Self.insert(connection, id: id, at: Date(), session: session)
            }
        }
        #expect(error?.sqlState == "23505")
        let stored = try await TestDatabase.withConnection(configuration) { connection in
            // The first insert above stays; the same id in another session is a second row.
            try Self.insert(connection, id: id, at: Date(), session: UUID())
            return try connection.query("SELECT count(*) AS n FROM events WHERE event_id = $1", [.uuid(id)])
                .first?["n"].int
        }
        #expect(stored == 2)
    }

    @Test func unknownEventKindIsRefused() async throws {
        let configuration = try await TestDatabase.migrated("schema_kind")
        let error = await #expect(throws: PostgresError.self) {
            try await TestDatabase.withConnection(configuration) { connection in
                try connection.query(
                    "INSERT INTO events (event_id, session_id, seq, kind, occurred_at) VALUES ($1, $2, 0, 'step_teleported', now())",
                    [.uuid(UUID()), .uuid(UUID())])
            }
        }
        #expect(error?.sqlState == "23514")
    }

    @Test func writerCanOnlyInsertAndReaderCanOnlySelect() async throws {
        let configuration = try await TestDatabase.migrated("schema_roles")
        let outcomes = try await TestDatabase.withConnection(configuration) { connection -> [String: String] in
            func attempt(_ role: String, _ sql: String, _ parameters: [PostgresValue] = []) -> String {
                do {
                    try connection.query("SET ROLE \(role)")
                    defer { _ = try? connection.query("RESET ROLE") }
                    try connection.query(sql, parameters)
                    return "ok"
                } catch let error as PostgresError {
                    _ = try? connection.query("RESET ROLE")
                    return error.sqlState ?? "?"
                } catch {
                    return "?"
                }
            }
            let insert =
                "INSERT INTO events (event_id, session_id, seq, kind, occurred_at) VALUES ($1, $2, 0, 'custom', now())"
            return [
                "writer insert event": attempt("onboardmetrics_writer", insert, [.uuid(UUID()), .uuid(UUID())]),
                "writer insert session": attempt(
                    "onboardmetrics_writer", "INSERT INTO sessions (session_id, started_at) VALUES ($1, now())",
                    [.uuid(UUID())]),
                "writer select": attempt("onboardmetrics_writer", "SELECT count(*) FROM events"),
                "writer delete": attempt("onboardmetrics_writer", "DELETE FROM events"),
                "writer insert flow": attempt(
                    "onboardmetrics_writer", "INSERT INTO flows (flow_id, version, definition) VALUES ('f', 1, '{}')"),
                "reader select": attempt("onboardmetrics_reader", "SELECT count(*) FROM events"),
                "reader select assignments": attempt("onboardmetrics_reader", "SELECT count(*) FROM assignments"),
                "reader insert": attempt("onboardmetrics_reader", insert, [.uuid(UUID()), .uuid(UUID())]),
            ]
        }
        #expect(outcomes["writer insert event"] == "ok")
        #expect(outcomes["writer insert session"] == "ok")
        #expect(outcomes["writer select"] == "42501")
        #expect(outcomes["writer delete"] == "42501")
        #expect(outcomes["writer insert flow"] == "42501")
        #expect(outcomes["reader select"] == "ok")
        #expect(outcomes["reader select assignments"] == "ok")
        #expect(outcomes["reader insert"] == "42501")
    }
}
