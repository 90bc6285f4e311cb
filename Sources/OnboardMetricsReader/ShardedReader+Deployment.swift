import Foundation
import OnboardMetricsPostgres
import OnboardMetricsStore

extension ShardedReader {
    /// A read of a deployment, ready to run: the reader over its shards (or the coordinator), what
    /// PostgreSQL estimates the events to read are, and the identity links merged for `--per user`.
    public struct Deployment: Sendable {
        /// The reader over the deployment's sources.
        public var reader: ShardedReader
        /// The planner's estimate of the events over every server read (for a progress bar).
        public var estimatedEvents: Double
        /// The merged identity links, when units are people; `nil` otherwise.
        public var people: PersonLinks?
    }

    /// Prepares a read of a deployment: the shard topology of `configuration` (a coordinator, or a
    /// single server), the row estimates, and — with `people` — the identity links of every server
    /// read, merged (``PersonLinks``), so a session's user is its person. What `funnel report` and
    /// the dashboard both read through.
    /// - Throws: `PostgresError`.
    public static func deployment(
        configuration: PostgresConfiguration, reader: SessionReader, connections: Int, people: Bool = false
    ) async throws -> Deployment {
        let (topology, estimate, links) = try await BlockingIO.run {
            let connection = try PostgresConnection(configuration: configuration)
            defer { connection.close() }
            let topology = try ShardCatalog().loadIfMigrated(on: connection)
            var links = PersonLinks()
            guard topology.isSharded else {
                if people { try links.load(on: connection) }
                return (topology, try EventStore().estimatedCount(on: connection), links)
            }
            var estimate = 0.0
            for shard in topology.shards {
                let shardConnection = try PostgresConnection(configuration: shard.configuration)
                defer { shardConnection.close() }
                estimate += try EventStore().estimatedCount(on: shardConnection)
                // A person's links may sit on any shard (each with its session's events).
                if people { try links.load(on: shardConnection) }
            }
            return (topology, estimate, links)
        }
        var reader = reader
        var resolved: PersonLinks?
        if people {
            var merged = links
            merged.resolve()
            reader.people = merged
            resolved = merged
        }
        let sharded = ShardedReader(
            reader: reader, topology: topology, coordinator: configuration, connectionsPerShard: connections)
        return Deployment(reader: sharded, estimatedEvents: estimate, people: resolved)
    }
}
