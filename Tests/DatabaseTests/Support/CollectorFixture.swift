import Foundation
import Logging
import Testing

@testable import OnboardMetricsCollector
@testable import OnboardMetricsPostgres
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// A database, a key and the collector served in this process — the same `CollectorService`
/// `funnel serve` runs, on a free loopback port — for the tests of what the collector does over
/// HTTP. (The command's own behaviour, its output and signals, is tested on the built binary:
/// ``ServeFixture``.)
struct CollectorFixture {
    var configuration: PostgresConfiguration
    var url: String
    var key: String
    var folder: URL
    var server: InProcessCollector
    var endpoint: URL { server.endpoint }

    /// Starts the collector; `configure` changes `funnel serve`'s defaults (as its options would).
    static func start(
        _ name: String, _ configure: (inout CollectorService.Settings) -> Void = { _ in }
    ) async throws -> CollectorFixture {
        let configuration = try await TestDatabase.migrated(name)
        let url = TestDatabase.url(of: configuration)
        let folder = try TestDatabase.temporaryFolder(name)
        let created = try await TestDatabase.withConnection(configuration) { connection in
            try AppKeyStore().create(name: "test app", on: connection)
        }
        var settings = CollectorService.Settings(database: configuration)
        settings.recorder.spoolDirectory = folder.appendingPathComponent("spool").path
        configure(&settings)
        let server = try await InProcessCollector.start(settings)
        return CollectorFixture(
            configuration: configuration, url: url, key: created.secret, folder: folder, server: server)
    }

    /// Stops the server without waiting (from `defer`, which cannot await) and removes the folder.
    func close() {
        let server = server
        Task { await server.stop() }
        try? FileManager.default.removeItem(at: folder)
    }

    /// Starts the collector again on the same database and spool, on a new port.
    mutating func restart(_ configure: (inout CollectorService.Settings) -> Void = { _ in }) async throws {
        await server.stop()
        var settings = CollectorService.Settings(database: configuration)
        settings.recorder.spoolDirectory = folder.appendingPathComponent("spool").path
        configure(&settings)
        server = try await InProcessCollector.start(settings)
    }

    func storedEvents() async throws -> [UUID: (sentAt: Date?, receivedAt: Date?)] {
        try await TestDatabase.storedStamps(configuration)
    }
}

/// A `CollectorService` running in a task of this process, with a metrics registry of its own.
final class InProcessCollector: Sendable {
    let service: CollectorService
    let endpoint: URL
    private let running: Task<Void, any Error>

    private init(service: CollectorService, endpoint: URL, running: Task<Void, any Error>) {
        self.service = service
        self.endpoint = endpoint
        self.running = running
    }

    /// Starts `settings` on a free loopback port; returns once it listens.
    static func start(_ settings: CollectorService.Settings) async throws -> InProcessCollector {
        var settings = settings
        settings.host = "127.0.0.1"
        settings.port = 0
        // Quiet: a spawned server's log went to its own stderr, this one's would fill the test output.
        settings.logger.logLevel = .critical
        settings.collectorLogger.logLevel = .critical
        settings.recorder.logger.logLevel = .critical
        let (ports, listening) = AsyncStream.makeStream(of: Int.self)
        let service = try await CollectorService.make(settings: settings, metrics: ServeMetrics()) { port in
            listening.yield(port)
            listening.finish()
        }
        let running = Task { try await service.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), let endpoint = URL(string: "http://127.0.0.1:\(port)") else {
            running.cancel()
            throw CollectorStartError()
        }
        return InProcessCollector(service: service, endpoint: endpoint, running: running)
    }

    /// Stops taking requests, answers those in flight, flushes the recorder.
    func stop() async {
        await service.triggerGracefulShutdown()
        _ = try? await running.value
    }

    struct CollectorStartError: Error, CustomStringConvertible {
        var description: String { "the in-process collector stopped before it listened" }
    }
}
