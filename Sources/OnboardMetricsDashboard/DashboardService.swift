import Foundation
import Hummingbird
import Logging
import OnboardMetricsPostgres
import OnboardMetricsReader
import OnboardMetricsSDK
import ServiceLifecycle
import UnixSignals

/// `funnel dashboard` as one piece: the HTTP server in a `ServiceGroup`, so SIGTERM or SIGINT
/// stops taking requests and answers those in flight. It reads with the database the reports use
/// and writes nothing. Tests run the same service in process.
package final class DashboardService: Sendable {
    /// Everything `funnel dashboard`'s options set.
    package struct Settings: Sendable {
        package var host = "127.0.0.1"
        /// 0 picks a free port (``make(settings:onRunning:)`` tells which).
        package var port = 8090
        package var database: PostgresConfiguration
        /// Connections per server a report reads on; `nil`: ``ShardedReader/automaticConnections``.
        package var readConnections: Int? = nil
        /// The most events kept decoded between reports (``SessionCache``); 0 keeps none.
        package var cacheEvents = DashboardService.defaultCacheEvents
        /// Seconds between background refreshes of the kept sessions; 0: only when a page asks.
        package var refreshInterval = DashboardService.defaultRefreshInterval
        package var viewers = ViewerAuthenticator.Settings()
        /// Failed sign-ins per client address: a burst, then one per `signInInterval` seconds.
        package var signInBurst = 10.0
        package var signInInterval = 60.0
        /// Whether the session cookie carries `Secure` (`--cookie-secure`).
        package var cookieSecure = false
        /// Whether SIGTERM and SIGINT stop the service gracefully (not in tests).
        package var stopsOnTerminationSignals = false
        /// The server's log: one line per request, failed sign-ins, errors.
        package var logger = Logger(label: "funnel.dashboard")

        package init(database: PostgresConfiguration) {
            self.database = database
        }
    }

    /// `--cache-events`' default: at about 140 bytes an event for the two groupings the pages use
    /// together (the flow pages' and the ad-hoc funnel's, which share the sessions they cut
    /// alike), 0.3 GB at most (BENCHMARKS.md).
    package static let defaultCacheEvents = 2_000_000

    /// `--refresh-every`'s default: new events are read within a few seconds, for the price of a
    /// few small queries when nothing changed.
    package static let defaultRefreshInterval = 5.0

    private let group: ServiceGroup

    private init(group: ServiceGroup) {
        self.group = group
    }

    /// The dashboard's decisions for `settings`, without a server (what the routes are built on).
    package static func dashboard(settings: Settings) -> Dashboard {
        Dashboard(
            data: DashboardData(
                database: settings.database, connections: settings.readConnections,
                cache: settings.cacheEvents > 0
                    ? SessionCache(configuration: settings.database, maximumEvents: settings.cacheEvents) : nil),
            viewers: ViewerAuthenticator(database: settings.database, settings: settings.viewers),
            limiter: SignInLimiter(rate: 1 / max(settings.signInInterval, 0.001), burst: settings.signInBurst),
            logger: settings.logger, cookieSecure: settings.cookieSecure)
    }

    /// Builds the server (nothing listens before ``run()``).
    /// - Parameter onRunning: called with the port once the server listens.
    package static func make(settings: Settings, onRunning: @escaping @Sendable (Int) async -> Void) -> DashboardService
    {
        let dashboard = dashboard(settings: settings)
        let app = Application(
            router: DashboardRouter.make(dashboard),
            configuration: .init(
                address: .hostname(settings.host, port: settings.port),
                serverName: "funnel-dashboard/\(OnboardMetricsVersion.current)"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
            logger: settings.logger)
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [.init(service: app)]
        if let cache = dashboard.data.cache, settings.refreshInterval > 0 {
            services.append(
                .init(
                    service: SessionCacheRefresher(
                        cache: cache, interval: settings.refreshInterval, logger: settings.logger)))
        }
        let group = ServiceGroup(
            configuration: .init(
                services: services,
                gracefulShutdownSignals: settings.stopsOnTerminationSignals ? [.sigterm, .sigint] : [],
                logger: settings.logger))
        return DashboardService(group: group)
    }

    /// Serves until a graceful shutdown has answered every request.
    package func run() async throws {
        try await group.run()
    }

    /// Stops taking requests, answers those in flight, and ends ``run()``.
    package func triggerGracefulShutdown() async {
        await group.triggerGracefulShutdown()
    }
}
