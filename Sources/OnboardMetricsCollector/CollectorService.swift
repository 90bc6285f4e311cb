import Foundation
import Hummingbird
import Logging
import OnboardMetricsHTTP
import OnboardMetricsPostgres
import OnboardMetricsStore
import ServiceLifecycle
import UnixSignals

/// `funnel serve` as one piece: the recorder (one per shard), the app-key cache and the HTTP
/// server, run as one `ServiceGroup` in that order — so a graceful shutdown stops taking requests,
/// answers those in flight, and only then flushes what the recorder holds. The command parses its
/// arguments into ``Settings``; tests run the same service in process.
package final class CollectorService: Sendable {
    /// Everything `funnel serve`'s options set.
    package struct Settings: Sendable {
        package var host = "127.0.0.1"
        /// 0 picks a free port (``make(settings:metrics:onRunning:)`` tells which).
        package var port = 8080
        package var collector = Collector.Configuration()
        /// The recorder's settings; its database is the coordinator's.
        package var recorder: EventRecorder.Configuration
        package var timeouts = ConnectionTimeouts(header: .seconds(10), body: .seconds(30), idle: .seconds(60))
        /// Whether SIGTERM and SIGINT stop the service gracefully (`funnel serve`; not in tests,
        /// which stop it with ``CollectorService/triggerGracefulShutdown()``).
        package var stopsOnTerminationSignals = false
        /// The HTTP server's and the service group's logger.
        package var logger = Logger(label: "funnel.serve")
        /// One line per refused request (see ``Collector``).
        package var collectorLogger = Logger(label: "onboardmetrics.collector")

        /// The defaults, recording into `database`.
        package init(database: PostgresConfiguration) {
            recorder = EventRecorder.Configuration(database: database)
        }
    }

    /// The recorder, routing each event to its shard's recorder.
    package let recorder: ShardedEventRecorder
    private let group: ServiceGroup

    private init(recorder: ShardedEventRecorder, group: ServiceGroup) {
        self.recorder = recorder
        self.group = group
    }

    /// Reads the app keys and the shard topology, and builds the services (nothing listens
    /// before ``run()``).
    /// - Parameters:
    ///   - metrics: the backend the collector and the recorder count into, served at `GET /metrics`.
    ///   - onRunning: called with the port once the server listens.
    /// - Throws: `PostgresError` when the database cannot be read, `RecorderError` `.spool` when
    ///   a spool folder cannot be used.
    package static func make(
        settings: Settings, metrics: ServeMetrics, onRunning: @escaping @Sendable (Int) async -> Void
    ) async throws -> CollectorService {
        let database = settings.recorder.database
        let keys = AppKeyCache(database: database)
        try await keys.load()
        var recorderSettings = settings.recorder
        recorderSettings.metricsFactory = metrics
        // With shards, one recorder per shard, each with a spool of its own (SPOOL/shard-ID).
        let topology = try await BlockingIO.run { try ShardCatalog().load(database) }
        let recorder = try ShardedEventRecorder(configuration: recorderSettings, topology: topology)
        var collectorSettings = settings.collector
        collectorSettings.metricsFactory = metrics
        let collector = Collector(
            configuration: collectorSettings, recorder: recorder, keys: keys, logger: settings.collectorLogger)
        let app = CollectorServer.application(
            collector: collector, metrics: metrics.registry, host: settings.host, port: settings.port,
            timeouts: settings.timeouts, logger: settings.logger, onServerRunning: onRunning)
        // A graceful shutdown stops the services in reverse order: the server stops accepting and
        // answers what is in flight, the key cache stops, then the recorder flushes.
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: recorder), .init(service: keys), .init(service: app)],
                gracefulShutdownSignals: settings.stopsOnTerminationSignals ? [.sigterm, .sigint] : [],
                logger: settings.logger))
        return CollectorService(recorder: recorder, group: group)
    }

    /// Serves until a graceful shutdown (SIGTERM or SIGINT with ``Settings/stopsOnTerminationSignals``, or
    /// ``triggerGracefulShutdown()``) has answered every request and flushed the recorder.
    package func run() async throws {
        try await group.run()
    }

    /// Stops taking requests, answers those in flight, flushes, and ends ``run()``.
    package func triggerGracefulShutdown() async {
        await group.triggerGracefulShutdown()
    }
}
