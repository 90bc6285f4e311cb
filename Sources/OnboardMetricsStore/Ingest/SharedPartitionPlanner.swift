import Foundation
import NIOConcurrencyHelpers
import OnboardMetricsPostgres
import OnboardMetricsSDK

/// A ``PartitionPlanner`` shared by the writers of one ingest: partitions are created under its
/// lock, so two writers never create the same month, and a writer whose batch needs a month being
/// created waits for it rather than copying its rows into the default partition.
final class SharedPartitionPlanner: Sendable {
    private let planner = NIOLockedValueBox<PartitionPlanner?>(nil)

    /// Creates the partitions `events` need (at most a few per batch, see ``PartitionPlanner``),
    /// reading the partitions that exist on first use.
    /// - Throws: `PostgresError`.
    func prepare(for events: [Event], store: EventStore, on connection: PostgresConnection) throws {
        try planner.withLockedValue { planner in
            var known = try planner ?? Self.existing(store: store, on: connection)
            try store.ensurePartitions(for: events, now: Date(), planner: &known, on: connection)
            planner = known
        }
    }

    private static func existing(store: EventStore, on connection: PostgresConnection) throws -> PartitionPlanner {
        var planner = PartitionPlanner()
        planner.markKnown(try store.partitionMonths(on: connection))
        return planner
    }
}
