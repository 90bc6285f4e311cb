import Foundation
import OnboardMetricsPostgres

/// The coordinator's SQL view of all events: `sharded.events`, a table partitioned by
/// `onboardmetrics_bucket(session_id)` — PostgreSQL's hash of the session, in 64 buckets — whose
/// partitions are `postgres_fdw` foreign tables, one per shard, each taking that shard's buckets.
/// Analysts query it like the events table (`SET search_path = sharded, public`); PostgreSQL
/// pushes filters and aggregates down to the shards. Read-only: the foreign servers are not
/// updatable and analysts get SELECT only.
///
/// Rebuilt after every topology change; a database without the `postgres_fdw` extension installed
/// keeps working without it (``rebuild(on:)`` throws, the caller warns).
public struct ShardForeignTables: Sendable {
    /// Creates the builder.
    public init() {}

    /// Drops and recreates `sharded.events` and one foreign server per shard.
    /// - Throws: `PostgresError` (e.g. postgres_fdw not installed, or a user mapping refused).
    public func rebuild(on coordinator: PostgresConnection) throws {
        let topology = try ShardCatalog().load(on: coordinator)
        try coordinator.transaction { connection in
            try connection.query("CREATE EXTENSION IF NOT EXISTS postgres_fdw")
            try connection.query("CREATE SCHEMA IF NOT EXISTS sharded")
            try connection.query("DROP TABLE IF EXISTS sharded.events")
            let servers = try connection.query(
                "SELECT srvname::text AS name FROM pg_foreign_server WHERE srvname LIKE 'onboardmetrics_shard_%'")
            for server in servers {
                guard let name = server["name"].string else { continue }
                try connection.query("DROP SERVER \(PostgresConnection.quotedIdentifier(name)) CASCADE")
            }
            guard topology.isSharded else { return }
            let superuser =
                try connection.query("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").first?["rolsuper"]
                .bool ?? false
            try connection.query(
                """
                CREATE TABLE sharded.events (LIKE public.events INCLUDING DEFAULTS)
                PARTITION BY LIST (public.onboardmetrics_bucket(session_id))
                """)
            for shard in topology.shards where !shard.buckets.isEmpty {
                let server = "onboardmetrics_shard_\(shard.id)"
                var options = try PostgresConfiguration.options(of: shard.url, naming: "shard URL")
                let user = options.removeValue(forKey: "user")
                let password = options.removeValue(forKey: "password")
                // Options libpq takes that a foreign server may not carry.
                for key in ["client_encoding", "fallback_application_name", "replication"] { options[key] = nil }
                options["updatable"] = "false"
                try connection.query(
                    "CREATE SERVER \(server) FOREIGN DATA WRAPPER postgres_fdw OPTIONS (\(Self.optionList(options)))")
                var mapping: [String: String] = [:]
                if let user { mapping["user"] = user }
                if let password { mapping["password"] = password }
                // postgres_fdw lets a non-superuser (onboardmetrics_reader) through a mapping only if the
                // shard asked for its password; shards on trust, peer or certificate authentication
                // would refuse every analyst. Only a superuser may waive that, for this read-only server.
                if superuser { mapping["password_required"] = "false" }
                let mappingOptions = mapping.isEmpty ? "" : " OPTIONS (\(Self.optionList(mapping)))"
                try connection.query("CREATE USER MAPPING FOR PUBLIC SERVER \(server)\(mappingOptions)")
                try connection.query(
                    """
                    CREATE FOREIGN TABLE sharded.events_shard_\(shard.id) PARTITION OF sharded.events
                    FOR VALUES IN (\(shard.buckets.map(String.init).joined(separator: ", ")))
                    SERVER \(server) OPTIONS (schema_name 'public', table_name 'events')
                    """)
            }
            try connection.query("GRANT USAGE ON SCHEMA sharded TO onboardmetrics_reader")
            try connection.query("GRANT SELECT ON sharded.events TO onboardmetrics_reader")
        }
    }

    /// `key 'value', ...` with values quoted as SQL literals (options cannot be parameters).
    private static func optionList(_ options: [String: String]) -> String {
        options.keys.sorted().map { key in
            "\(PostgresConnection.quotedIdentifier(key)) '\((options[key] ?? "").replacingOccurrences(of: "'", with: "''"))'"
        }.joined(separator: ", ")
    }
}
