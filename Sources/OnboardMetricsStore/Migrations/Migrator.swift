import Crypto
import Foundation
import OnboardMetricsPostgres

/// Applies migrations in order, each once and inside its own transaction, recording each with
/// a SHA-256 checksum of its text in `schema_migrations`.
///
/// Concurrent runs are safe: every run holds a session-level advisory lock while it reads and
/// applies, so a second run waits for the first and then finds nothing left to do.
public struct Migrator: Sendable {
    /// The state of one migration in a database.
    public struct Status: Sendable, Hashable {
        /// Whether it was applied, is pending, or was applied from a text that has since changed.
        public enum State: String, Sendable, Hashable, Codable {
            case applied, pending, changed
            /// Recorded in the database but no longer among the files.
            case missing
        }
        public let version: Int
        public let fileName: String
        public let state: State
        public let appliedAt: Date?
    }

    /// The migrations, sorted by version.
    public let migrations: [Migration]

    /// Key of the advisory lock every run holds; any constant shared by all runs will do.
    static let lockKey: Int64 = 0x4F4E_424F_4152_4D47  // "ONBOARMG"

    /// Creates a migrator for these migrations.
    public init(migrations: [Migration]) {
        self.migrations = migrations.sorted { $0.version < $1.version }
    }

    /// Creates a migrator for the `.sql` files of a folder.
    /// - Throws: ``MigrationError`` `.invalidFile` when the folder cannot be read or a file is misnamed.
    public init(directory: URL) throws {
        self.init(migrations: try Migration.load(from: directory))
    }

    /// Lists each migration's state in the connected database.
    /// - Throws: `PostgresError` from the database.
    public func status(on connection: PostgresConnection) throws -> [Status] {
        try withLock(on: connection) { try currentStatus(on: connection) }
    }

    /// Applies every pending migration.
    /// - Parameters:
    ///   - connection: the database to migrate.
    ///   - willApply: called before each migration is applied.
    /// - Returns: the migrations this run applied (none when another run already did).
    /// - Throws: ``MigrationError`` (`.changed`, `.refused`) naming the file whose checksum changed or
    ///   whose SQL the server refused; `PostgresError` when the database cannot be reached.
    @discardableResult
    public func migrate(on connection: PostgresConnection, willApply: (Migration) -> Void = { _ in }) throws
        -> [Migration]
    {
        // Every command migrates first: when nothing is pending, one read, without the lock or
        // the table's creation, instead of a dozen round trips (a small ingest's fixed cost).
        if try isUpToDate(on: connection) { return [] }
        return try withLock(on: connection) {
            let statuses = try currentStatus(on: connection)
            if let changed = statuses.first(where: { $0.state == .changed }) {
                throw MigrationError(
                    .changed,
                    "\(changed.fileName) was changed after it was applied (its checksum differs); "
                        + "restore the original file and put the change in a new migration")
            }
            var applied: [Migration] = []
            for migration in migrations
            where statuses.contains(where: { $0.version == migration.version && $0.state == .pending }) {
                willApply(migration)
                do {
                    try connection.transaction { connection in
                        try connection.executeScript(migration.sql)
                        try connection.query(
                            """
                            INSERT INTO schema_migrations (version, file_name, checksum)
                            VALUES ($1, $2, encode(sha256(convert_to($3, 'UTF8')), 'hex'))
                            """,
                            [.int32(Int32(migration.version)), .text(migration.fileName), .text(migration.sql)])
                    }
                } catch let error as PostgresError where error.code == .server {
                    throw MigrationError(
                        .refused, "\(migration.fileName)\(Self.line(of: error, in: migration.sql)): \(error)",
                        sqlState: error.sqlState)
                }
                applied.append(migration)
            }
            return applied
        }
    }

    /// Whether every migration is applied, unchanged, and no other is recorded: read without the
    /// lock (a run applying one commits its row with it, so this sees it applied or pending).
    /// False whenever in doubt: the locked path then decides.
    private func isUpToDate(on connection: PostgresConnection) throws -> Bool {
        do {
            return try currentStatus(on: connection).allSatisfy { $0.state == .applied }
        } catch let error as PostgresError where error.sqlState == "42P01" {
            return false
        }
    }

    /// Whether `recorded` is the checksum of the migration's text: computed here (the server's
    /// `sha256` of the text converted to UTF-8 is the SHA-256 of its UTF-8 bytes), and asked of
    /// the server only when they differ, as every migration's used to be (one round trip each).
    private func isChecksum(_ recorded: String?, of migration: Migration, on connection: PostgresConnection) throws
        -> Bool
    {
        if recorded == Self.checksum(of: migration.sql) { return true }
        let server = try connection.query(
            "SELECT encode(sha256(convert_to($1, 'UTF8')), 'hex') AS checksum", [.text(migration.sql)])
        return server.first?["checksum"].string == recorded
    }

    /// The hex SHA-256 of the text's UTF-8 bytes, as `encode(sha256(convert_to(text, 'UTF8')), 'hex')`.
    static func checksum(of text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    private func withLock<T>(on connection: PostgresConnection, _ body: () throws -> T) throws -> T {
        try connection.query("SELECT pg_advisory_lock($1)", [.int64(Self.lockKey)])
        defer { _ = try? connection.query("SELECT pg_advisory_unlock($1)", [.int64(Self.lockKey)]) }
        try connection.executeScript(
            """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version    integer     PRIMARY KEY,
                file_name  text        NOT NULL,
                checksum   text        NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """)
        return try body()
    }

    private func currentStatus(on connection: PostgresConnection) throws -> [Status] {
        let recorded = try connection.query("SELECT version, file_name, checksum, applied_at FROM schema_migrations")
        var byVersion: [Int: PostgresRow] = [:]
        for row in recorded { if let version = row["version"].int { byVersion[version] = row } }
        var statuses: [Status] = []
        for migration in migrations {
            guard let row = byVersion.removeValue(forKey: migration.version) else {
                statuses.append(
                    Status(version: migration.version, fileName: migration.fileName, state: .pending, appliedAt: nil))
                continue
            }
            let state: Status.State =
                try isChecksum(row["checksum"].string, of: migration, on: connection) ? .applied : .changed
            statuses.append(
                Status(
                    version: migration.version, fileName: migration.fileName, state: state,
                    appliedAt: row["applied_at"].date))
        }
        for (version, row) in byVersion {
            statuses.append(
                Status(
                    version: version, fileName: row["file_name"].string ?? "?", state: .missing,
                    appliedAt: row["applied_at"].date))
        }
        return statuses.sorted { $0.version < $1.version }
    }

    /// " line N" for a server error with a character position, to point into the file.
    private static func line(of error: PostgresError, in sql: String) -> String {
        guard let range = error.message.range(of: "(at character "),
            let position = Int(error.message[range.upperBound...].prefix(while: \.isNumber)), position > 0
        else { return "" }
        let prefix = sql.prefix(position)
        return ":\(prefix.filter { $0 == "\n" }.count + 1)"
    }
}
