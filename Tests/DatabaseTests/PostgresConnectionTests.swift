import Foundation
import Testing

@testable import OnboardMetricsPostgres
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

@Suite struct PostgresConnectionTests {
    @Test func connectsByURI() async throws {
        let url = try TestDatabase.adminURL()
        #expect(url.hasPrefix("postgresql://"))
        let database = try await TestDatabase.withConnection(PostgresConfiguration(url)) { connection in
            try connection.query("SELECT current_database() AS name").first?["name"].string
        }
        #expect(database != nil)
    }

    @Test func connectsByKeyValueString() async throws {
        let components = try #require(URLComponents(string: try TestDatabase.adminURL()))
        let host = try #require(components.queryItems?.first { $0.name == "host" }?.value)
        let conninfo = "host='\(host)' port=5432 user=onboardmetrics dbname=postgres"
        let database = try await TestDatabase.withConnection(PostgresConfiguration(conninfo)) { connection in
            try connection.query("SELECT current_database() AS name").first?["name"].string
        }
        #expect(database == "postgres")
    }

    @Test func connectsThroughPGEnvironmentVariables() async throws {
        // A child process with only PG* variables set: nothing is passed on the command line.
        let configuration = try await TestDatabase.fresh("pg_environment")
        let components = try #require(URLComponents(string: try TestDatabase.adminURL()))
        let host = try #require(components.queryItems?.first { $0.name == "host" }?.value)
        let database = try #require(configuration.overrides["dbname"])
        let folder = try TestDatabase.temporaryFolder("pgenv")
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = """
            cd '\(folder.path)' && env -u DATABASE_URL PGHOST='\(host)' PGPORT=5432 PGUSER=onboardmetrics \
            PGDATABASE='\(database)' ONBOARDMETRICS_MIGRATIONS='\(TestDatabase.migrationsDirectory.path)' \
            '\(TestDatabase.funnelExecutable)' migrate --format json
            """
        let outcome = try await BlockingIO.run { try ProcessRunner.run("/bin/sh", ["-c", script]) }
        #expect(outcome.status == 0, "\(outcome.output)")
        #expect(outcome.output.contains("0001_event_schema.sql"))
        // It used the configured server, not an embedded cluster in the working folder.
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(".onboardmetrics").path))
        let applied = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query("SELECT count(*) AS n FROM schema_migrations").first?["n"].int
        }
        #expect(applied == (try Migrator(directory: TestDatabase.migrationsDirectory).migrations.count))
    }

    static let roundTripValues: [PostgresValue] = [
        .bool(true), .bool(false),
        .int16(-32768), .int16(32767),
        .int32(-2_147_483_648), .int32(42),
        .int64(Int64.min), .int64(9_007_199_254_740_993),
        .float64(3.141592653589793), .float64(-0.0), .float64(1e-300),
        .text(""), .text("plain"), .text("Zürich · 東京 · עברית · 🚀"),
        .uuid(UUID(uuidString: "0190F5A2-7B3C-7D4E-8F60-123456789ABC") ?? UUID()),
        .timestamp(Date(timeIntervalSince1970: 1_732_233_600.123456)),
        .timestamp(Date(timeIntervalSince1970: -86_400.5)),
        .jsonb(#"{"a": 1, "b": ["x", null], "ü": "é"}"#),
        .bytea([0, 1, 2, 255]),
    ]

    @Test(arguments: roundTripValues)
    func parameterRoundTrip(value: PostgresValue) async throws {
        let configuration = try TestDatabase.admin()
        let typeName = Self.sqlTypeName(value)
        let back = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query("SELECT $1::\(typeName) AS v, pg_typeof($1::\(typeName))::text AS t", [value]).first
        }
        let row = try #require(back)
        #expect(row["t"].string == typeName)
        if case .timestamp(let sent) = value, case .timestamp(let received) = row["v"] {
            #expect(abs(sent.timeIntervalSince1970 - received.timeIntervalSince1970) < 1e-6)
        } else {
            #expect(row["v"] == value)
        }
    }

    @Test(arguments: ["text", "int4", "uuid", "timestamptz", "jsonb", "bool", "float8", "int8", "int2", "bytea"])
    func nullRoundTrip(typeName: String) async throws {
        let back = try await TestDatabase.withConnection(try TestDatabase.admin()) { connection in
            try connection.query("SELECT $1::\(typeName) AS v, $1::\(typeName) IS NULL AS isnull", [.null]).first
        }
        let row = try #require(back)
        #expect(row["v"] == .null)
        #expect(row["isnull"] == .bool(true))
    }

    @Test func nulByteInTextIsRefusedClearly() async throws {
        let configuration = try TestDatabase.admin()
        let error = await #expect(throws: PostgresError.self) {
            try await TestDatabase.withConnection(configuration) { connection in
                try connection.query("SELECT $1::text", [.text("before\u{0}after")])
            }
        }
        #expect(error?.code == .invalidValue)
        #expect(error?.message.contains("NUL") == true)
    }

    @Test func uniqueViolationCarriesSQLStateAndDetail() async throws {
        let configuration = try await TestDatabase.fresh("unique_violation")
        let error = await #expect(throws: PostgresError.self) {
            try await TestDatabase.withConnection(configuration) { connection in
                try connection.query("CREATE TABLE t (id int PRIMARY KEY)")
                try connection.query("INSERT INTO t VALUES ($1)", [.int32(1)])
                try connection.query("INSERT INTO t VALUES ($1)", [.int32(1)])
            }
        }
        #expect(error?.code == .server)
        #expect(error?.sqlState == "23505")
        #expect(error?.detail?.contains("already exists") == true)
        #expect(error?.isTransient == false)
    }

    @Test func syntaxErrorCarriesSQLStateAndPosition() async throws {
        let error = await #expect(throws: PostgresError.self) {
            try await TestDatabase.withConnection(try TestDatabase.admin()) { connection in
                try connection.query("SELEC 1")
            }
        }
        #expect(error?.sqlState == "42601")
        #expect(error?.message.contains("at character 1") == true)
    }

    @Test func droppedConnectionIsReportedAsLost() async throws {
        let configuration = try TestDatabase.admin()
        let error = await #expect(throws: PostgresError.self) {
            try await BlockingIO.run {
                let victim = try PostgresConnection(configuration: configuration)
                let killer = try PostgresConnection(configuration: configuration)
                try killer.query("SELECT pg_terminate_backend($1)", [.int32(victim.backendPID)])
                try victim.query("SELECT 1")
            }
        }
        #expect(error?.code == .connectionLost)
        #expect(error?.isTransient == true)
    }

    @Test func transactionCommitsOrRollsBack() async throws {
        let configuration = try await TestDatabase.fresh("transactions")
        struct Deliberate: Error {}
        let count = try await TestDatabase.withConnection(configuration) { connection -> Int? in
            try connection.query("CREATE TABLE t (id int)")
            try connection.transaction { try $0.query("INSERT INTO t VALUES (1)") }
            do {
                try connection.transaction { connection in
                    try connection.query("INSERT INTO t VALUES (2)")
                    throw Deliberate()
                }
            } catch is Deliberate {}
            // A statement that fails inside the transaction: the whole transaction is rolled back.
            _ = try? connection.transaction { connection in
                try connection.query("INSERT INTO t VALUES (3)")
                try connection.query("INSERT INTO missing_table VALUES (3)")
            }
            return try connection.query("SELECT count(*) AS n, max(id) AS m FROM t").first?["n"].int
        }
        #expect(count == 1)
    }

    @Test func closedConnectionRefusesUse() async throws {
        let error = await #expect(throws: PostgresError.self) {
            try await BlockingIO.run {
                let connection = try PostgresConnection(configuration: try TestDatabase.admin())
                connection.close()
                try connection.query("SELECT 1")
            }
        }
        #expect(error?.code == .connectionClosed)
    }

    static func sqlTypeName(_ value: PostgresValue) -> String {
        switch value {
        case .null: "text"
        case .bool: "boolean"
        case .int16: "smallint"
        case .int32: "integer"
        case .int64: "bigint"
        case .float64: "double precision"
        case .text: "text"
        case .uuid: "uuid"
        case .timestamp: "timestamp with time zone"
        case .jsonb: "jsonb"
        case .bytea: "bytea"
        }
    }
}
