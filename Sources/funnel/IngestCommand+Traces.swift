import Foundation
import OnboardMetrics

extension IngestCommand {
    /// Sessions awaiting their traces up to which ingest builds them: about a second of building
    /// (the 1 % more of the 7M-event benchmark is 6,000 sessions).
    static let defaultTraceBuildLimit = 20_000
    /// Events kept a session of the build limit, for building traces without reading them back:
    /// at the default, 240,000 events (about 100 MB, measured in BENCHMARKS.md).
    static let storedEventsPerSession = 12

    /// Builds the traces of the sessions awaiting them in each database (the shards of a sharded
    /// one), when few await, so a report right after the load only reads them.
    /// Nothing here touches the events: a failure is said on stderr and leaves the traces to the
    /// first report, which builds them as it would have anyway.
    /// - Returns: the sessions built and the seconds it took; nil when nothing was built because
    ///   too many await (or the limit is 0) in every database.
    /// - Parameter stored: the events an unsharded ingest kept (one target): the sessions' traces
    ///   are encoded from them where they are all of a session's events.
    func buildTraces(
        in targets: [PostgresConfiguration], stored: StoredSessions?, console: Console
    ) async -> (built: Int?, seconds: Double?) {
        let limit = traceBuildLimit
        guard limit > 0 else { return (nil, nil) }
        let started = Date()
        var built: Int?
        for target in targets {
            do {
                let count = try await BlockingIO.run { () throws -> Int? in
                    // The ingest's own connections where it left them.
                    var connections = stored?.takeConnections(for: target) ?? []
                    let connection = try connections.popLast() ?? PostgresConnection(configuration: target)
                    defer { connection.close() }
                    return try TraceBuilder().catchUp(
                        on: connection, more: connections, parts: ShardedReader.automaticConnections, ifAtMost: limit,
                        stored: stored
                    )?.built
                }
                if let count { built = (built ?? 0) + count }
            } catch let error as PostgresError where error.sqlState == "42501" {
                console.status("funnel: this role may not write the session traces: the first report builds them")
                return (nil, nil)
            } catch {
                console.status("funnel: could not build the session traces (\(error)): the first report builds them")
            }
        }
        // Timed as the load's own `seconds` is.
        return (built, built == nil ? nil : Date().timeIntervalSince(started))
    }
}
