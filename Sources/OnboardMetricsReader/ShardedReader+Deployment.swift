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
        /// The cohort the read is restricted to, if any.
        public var cohort: Cohort?
    }

    /// Prepares a read of a deployment: the shard topology of `configuration` (a coordinator, or a
    /// single server), the row estimates, and — with `people` — the identity links of every server
    /// read, merged (``PersonLinks``), so a session's user is its person. What `funnel report` and
    /// the dashboard both read through.
    /// With `cohort`, only the sessions of that saved cohort (of its people, for a cohort of users:
    /// identity links are then merged whatever `people` says, since its members are people).
    /// With `citusWorkers`, a Citus coordinator's events are read from its workers directly
    /// (``CitusPlacements``), `connections` per worker; elsewhere it changes nothing.
    /// `connections` `nil` reads a single server on ``automaticConnections`` connections, and each
    /// shard or Citus worker on one (they are read in parallel already).
    /// With `keepConnection`, a single server's set-up connection is left open for the read's
    /// first use (``spare``); a caller that reads kept sessions instead says false.
    /// - Throws: `PostgresError`; ``CohortError`` `.unknown` for a cohort that does not exist.
    public static func deployment(
        configuration: PostgresConfiguration, reader: SessionReader, connections: Int?, people: Bool = false,
        cohort cohortName: String? = nil, citusWorkers: Bool = false, keepConnection: Bool = true
    ) async throws -> Deployment {
        let placements = try await BlockingIO.run { () -> CitusPlacements? in
            guard citusWorkers else { return nil }
            let connection = try PostgresConnection(configuration: configuration)
            defer { connection.close() }
            return try CitusPlacements.load(on: connection).flatMap { $0.workers.isEmpty ? nil : $0 }
        }
        // Citus workers are read on connections of their own: the coordinator's is not kept.
        let keep = keepConnection && placements == nil
        let (topology, estimate, links, cohort, spare) = try await BlockingIO.run {
            () throws -> (ShardTopology, Double, PersonLinks?, Cohort?, SpareConnection?) in
            let connection = try PostgresConnection(configuration: configuration)
            // Closed on the way out unless left open for the read.
            var left = false
            defer { if !left { connection.close() } }
            // Cohorts are kept on the coordinator, with the flows and keys.
            let cohort = try cohortName.map { try CohortStore().load($0, on: connection) }
            // Links are read (non-nil) when units are people, or the cohort's members are.
            var links = people || cohort?.unit == .user ? PersonLinks() : nil
            let topology = try ShardCatalog().loadIfMigrated(on: connection)
            guard topology.isSharded else {
                try links?.load(on: connection)
                let estimate = try EventStore().estimatedCount(on: connection)
                // Left open for the read: the session file's refresh or the first source.
                guard keep else { return (topology, estimate, links, cohort, nil) }
                left = true
                return (
                    topology, estimate, links, cohort, SpareConnection(connection, configuration: configuration)
                )
            }
            var estimate = 0.0
            for shard in topology.shards {
                let shardConnection = try PostgresConnection(configuration: shard.configuration)
                defer { shardConnection.close() }
                estimate += try EventStore().estimatedCount(on: shardConnection)
                // A person's links may sit on any shard (each with its session's events).
                try links?.load(on: shardConnection)
            }
            return (topology, estimate, links, cohort, nil)
        }
        var reader = reader
        var resolved = links
        resolved?.resolve()
        if let resolved { reader.people = resolved }
        reader.cohort = cohort
        let perSource = connections ?? (placements != nil || topology.isSharded ? 1 : automaticConnections)
        let sharded =
            placements.map {
                ShardedReader(
                    reader: reader, placements: $0, coordinator: configuration, connectionsPerWorker: perSource)
            }
            ?? ShardedReader(
                reader: reader, topology: topology, coordinator: configuration, connectionsPerShard: perSource)
        var ready = sharded
        ready.spare = spare
        return Deployment(reader: ready, estimatedEvents: estimate, people: resolved, cohort: cohort)
    }

    /// The connections a single server is read on by default: one per core of this machine, at
    /// most 8. Replay is CPU-bound on the reading side: on 2 cores, `--flow` from the traces took
    /// 0.85 s on 2 connections against 1.14 s on one at 1.77M events (BENCHMARKS.md).
    public static var automaticConnections: Int {
        min(8, max(1, ProcessInfo.processInfo.activeProcessorCount))
    }
}
