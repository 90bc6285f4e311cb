import OnboardMetricsPostgres
import OnboardMetricsSDK

/// Which database a connection reached, whatever URL spelled it: the server's system identifier
/// (fixed at `initdb`) and the database's name. Two URLs that differ only in spelling, a
/// password or a host alias give the same identity, so a shard is never added twice or moved
/// onto itself.
public struct DatabaseIdentity: Hashable, Sendable, CustomStringConvertible {
    /// The cluster's system identifier (`pg_control_system()`), readable by any role.
    public var systemIdentifier: String
    /// The database's name within that cluster.
    public var database: String

    /// Creates an identity.
    public init(systemIdentifier: String, database: String) {
        self.systemIdentifier = systemIdentifier
        self.database = database
    }

    public var description: String { "database \(database) of the server \(systemIdentifier)" }

    /// The identity as one path component, `SYSTEM-DATABASE` (a database name may hold any
    /// character: only safe ones are kept).
    public var folderName: String { "\(systemIdentifier)-\(FileName.safe(database, keeping: "_-"))" }

    /// The identity of the database `connection` is connected to.
    /// - Throws: `PostgresError`.
    public static func of(_ connection: PostgresConnection) throws -> DatabaseIdentity {
        let row = try connection.query(
            "SELECT system_identifier::text AS system, current_database() AS name FROM pg_control_system()"
        ).first
        return DatabaseIdentity(systemIdentifier: row?["system"].string ?? "", database: row?["name"].string ?? "")
    }

    /// The identity of the database `configuration` reaches.
    /// - Throws: `PostgresError`.
    public static func of(_ configuration: PostgresConfiguration) throws -> DatabaseIdentity {
        let connection = try PostgresConnection(configuration: configuration)
        defer { connection.close() }
        return try of(connection)
    }
}
