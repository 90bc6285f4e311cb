import Foundation
import Testing

@testable import OnboardMetricsPostgres
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

@Suite struct MigratorTests {
    /// A folder holding a copy of the project's migrations plus `extra` files.
    static func migrationsFolder(_ name: String, extra: [String: String] = [:]) throws -> URL {
        let folder = try TestDatabase.temporaryFolder("migrations-\(name)")
        let fileManager = FileManager.default
        for file in try fileManager.contentsOfDirectory(atPath: TestDatabase.migrationsDirectory.path) {
            try fileManager.copyItem(
                at: TestDatabase.migrationsDirectory.appendingPathComponent(file),
                to: folder.appendingPathComponent(file))
        }
        for (file, sql) in extra {
            try sql.write(to: folder.appendingPathComponent(file), atomically: true, encoding: .utf8)
        }
        return folder
    }

    /// How many migrations the project has: the tests add theirs after these.
    static func projectMigrations() throws -> Int {
        try Migrator(directory: TestDatabase.migrationsDirectory).migrations.count
    }

    @Test func freshApplyRecordsChecksumsAndSecondRunIsANoOp() async throws {
        let configuration = try await TestDatabase.fresh("migrate_fresh")
        let migrator = try Migrator(directory: TestDatabase.migrationsDirectory)
        let (first, second, statuses, checksum) = try await TestDatabase.withConnection(configuration) { connection in
            let first = try migrator.migrate(on: connection)
            let second = try migrator.migrate(on: connection)
            let statuses = try migrator.status(on: connection)
            let checksum = try connection.query("SELECT checksum FROM schema_migrations WHERE version = 1").first?[
                "checksum"]
            return (first, second, statuses, checksum?.string)
        }
        #expect(first.map(\.fileName) == migrator.migrations.map(\.fileName))
        #expect(second.isEmpty)
        #expect(statuses.allSatisfy { $0.state == .applied })
        // The checksum is SHA-256 of the file, as the coreutils tool computes it independently.
        let file = TestDatabase.migrationsDirectory.appendingPathComponent("0001_event_schema.sql").path
        let sha = try await BlockingIO.run { try ProcessRunner.run("/usr/bin/sha256sum", [file]) }
        #expect(checksum == sha.output.split(separator: " ").first.map(String.init))
    }

    /// An up-to-date database is checked without the lock: a run waits for nothing another run
    /// holds, and its checksums (computed here) are the server's for every migration.
    @Test func upToDateIsSeenWithoutTheLock() async throws {
        let configuration = try await TestDatabase.fresh("migrate_unlocked")
        let migrator = try Migrator(directory: TestDatabase.migrationsDirectory)
        try await TestDatabase.withConnection(configuration) { connection in
            try migrator.migrate(on: connection)
            for migration in migrator.migrations {
                let server = try connection.query(
                    "SELECT encode(sha256(convert_to($1, 'UTF8')), 'hex')", [.text(migration.sql)]
                ).first?[0].string
                #expect(Migrator.checksum(of: migration.sql) == server)
            }
        }
        let holder = try PostgresConnection(configuration: configuration)
        defer { holder.close() }
        try holder.query("SELECT pg_advisory_lock($1)", [.int64(Migrator.lockKey)])
        let applied = try await TestDatabase.withConnection(configuration) { connection in
            // Waiting for the lock would fail here (55P03) instead of hanging the test.
            try connection.query("SET lock_timeout = '2s'")
            return try migrator.migrate(on: connection)
        }
        #expect(applied.isEmpty)
        // With one migration pending, the run takes the lock, so it waits (and here gives up).
        let more = Migrator(
            migrations: migrator.migrations + [try Migration(fileName: "9999_more.sql", sql: "SELECT 1")])
        await #expect(throws: PostgresError.self) {
            try await TestDatabase.withConnection(configuration) { connection in
                try connection.query("SET lock_timeout = '1s'")
                return try more.migrate(on: connection)
            }
        }
    }

    @Test func schemaHasTheEventVocabularyTables() async throws {
        let configuration = try await TestDatabase.migrated("migrate_tables")
        let tables = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query(
                "SELECT relname FROM pg_class WHERE relkind IN ('r', 'p') AND relnamespace = 'public'::regnamespace"
            ).compactMap { $0["relname"].string }
        }
        for table in [
            "events", "events_default", "sessions", "flows", "experiments", "assignments", "app_keys",
            "schema_migrations",
        ] {
            #expect(tables.contains(table), "missing table \(table)")
        }
    }

    @Test func changedChecksumIsRefusedNamingTheFile() async throws {
        let configuration = try await TestDatabase.fresh("migrate_changed")
        let folder = try Self.migrationsFolder("changed", extra: ["9002_extra.sql": "CREATE TABLE extra (id int);"])
        defer { try? FileManager.default.removeItem(at: folder) }
        try await TestDatabase.withConnection(configuration) { connection in
            try Migrator(directory: folder).migrate(on: connection)
        }
        try "CREATE TABLE extra (id bigint);".write(
            to: folder.appendingPathComponent("9002_extra.sql"), atomically: true, encoding: .utf8)
        let migrator = try Migrator(directory: folder)
        let error = await #expect(throws: MigrationError.self) {
            try await TestDatabase.withConnection(configuration) { try migrator.migrate(on: $0) }
        }
        #expect(error?.code == .changed)
        #expect(error?.message.contains("9002_extra.sql") == true)
        let states = try await TestDatabase.withConnection(configuration) { try migrator.status(on: $0).map(\.state) }
        #expect(states == Array(repeating: .applied, count: try Self.projectMigrations()) + [.changed])
    }

    @Test func failingMigrationNamesFileAndLineAndLeavesNothingBehind() async throws {
        let configuration = try await TestDatabase.fresh("migrate_failing")
        let broken = "CREATE TABLE half (id int);\n\nINSERT INTO half VALUES (1);\nSELEC broken;\n"
        let folder = try Self.migrationsFolder("failing", extra: ["9002_broken.sql": broken])
        defer { try? FileManager.default.removeItem(at: folder) }
        let migrator = try Migrator(directory: folder)
        let error = await #expect(throws: MigrationError.self) {
            try await TestDatabase.withConnection(configuration) { try migrator.migrate(on: $0) }
        }
        #expect(error?.code == .refused)
        #expect(error?.message.hasPrefix("9002_broken.sql:4:") == true, "\(String(describing: error))")
        #expect(error?.sqlState == "42601")
        let (half, states) = try await TestDatabase.withConnection(configuration) { connection in
            (
                try connection.query("SELECT to_regclass('half') IS NULL AS gone").first?["gone"].bool,
                try migrator.status(on: connection).map(\.state)
            )
        }
        #expect(half == true)
        #expect(states == Array(repeating: .applied, count: try Self.projectMigrations()) + [.pending])
    }

    @Test func concurrentRunsBothSucceedAndOneApplies() async throws {
        let configuration = try await TestDatabase.fresh("migrate_concurrent")
        // A slow migration widens the window in which the two runs overlap.
        let folder = try Self.migrationsFolder("concurrent", extra: ["9002_slow.sql": "SELECT pg_sleep(0.5);"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let migrator = try Migrator(directory: folder)
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    try await TestDatabase.withConnection(configuration) { try migrator.migrate(on: $0).count }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let all = try Self.projectMigrations() + 1
        #expect(counts.sorted() == [0, all])
        let recorded = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query("SELECT count(*) AS n FROM schema_migrations").first?["n"].int
        }
        #expect(recorded == all)
    }

    @Test(arguments: ["1_short.sql", "0001-dash.sql", "abcd_letters.sql", "0000_zero.sql"])
    func badFileNamesAreRefused(name: String) {
        let error = #expect(throws: MigrationError.self) { try Migration(fileName: name, sql: "") }
        #expect(error?.code == .invalidFile)
    }
}
