import Foundation
import Hummingbird
import Logging
import NIOCore
import OnboardMetricsHTTP
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
        /// How long a client may take over a request's head and body, and a kept-alive connection
        /// may wait (`--header-timeout`, `--body-timeout`, `--idle-timeout`): the collector's.
        package var timeouts = ConnectionTimeouts(header: .seconds(10), body: .seconds(30), idle: .seconds(60))
        /// Connections one client address may hold open (`--max-connections-per-client`).
        package var connectionsPerClient = DashboardService.defaultConnectionsPerClient
        /// Connections the server holds open in all (`--max-connections`), at most the file
        /// limit less ``DashboardService/reservedDescriptors``.
        package var connections = DashboardService.defaultConnections
        /// Whether every request comes through a proxy that appends its client's address to
        /// `X-Forwarded-For` (or writes `Forwarded: for=`), so that address, not the proxy's, is
        /// what failed sign-ins and connections are limited by (`--trust-proxy`).
        package var trustProxy = false
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

    /// `--max-connections-per-client`'s default: a browser opens about six connections to a host,
    /// so this leaves room for a score of viewers behind one address (an office's NAT).
    package static let defaultConnectionsPerClient = 128

    /// `--max-connections`' default.
    package static let defaultConnections = 4_096

    /// File descriptors kept out of the connection cap: database connections, the log, the
    /// listening socket, a refused connection's moment.
    package static let reservedDescriptors = 64

    private let group: ServiceGroup
    /// The connection caps the server's connections count in (what tests look at).
    package let connections: ConnectionLimiter

    private init(group: ServiceGroup, connections: ConnectionLimiter) {
        self.group = group
        self.connections = connections
    }

    /// The connections cap for `settings`: theirs, or the process's file limit less
    /// ``reservedDescriptors`` when that is lower (connections over the file limit would fail to
    /// be accepted at all, and the database connections with them).
    package static func connectionCap(settings: Settings, fileLimit: Int? = ConnectionLimiter.fileLimit()) -> Int {
        guard let fileLimit else { return settings.connections }
        return max(1, min(settings.connections, fileLimit - reservedDescriptors))
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
            logger: settings.logger, cookieSecure: settings.cookieSecure, trustProxy: settings.trustProxy)
    }

    /// Builds the server (nothing listens before ``run()``).
    /// - Parameter onRunning: called with the port once the server listens.
    package static func make(settings: Settings, onRunning: @escaping @Sendable (Int) async -> Void) -> DashboardService
    {
        let dashboard = dashboard(settings: settings)
        let total = connectionCap(settings: settings)
        if total < settings.connections {
            settings.logger.warning(
                "connections capped below --max-connections by the file limit (ulimit -n)",
                metadata: ["max_connections": .stringConvertible(total)])
        }
        let connections = ConnectionLimiter(perClient: settings.connectionsPerClient, total: total)
        let timeouts = settings.timeouts
        let app = Application(
            router: DashboardRouter.make(dashboard),
            // The collector's hygiene (one implementation, OnboardMetricsHTTP): the caps first, so
            // a connection over them is refused before anything else is set up for it.
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: connections.handlers(trustingProxy: settings.trustProxy)
                        + timeouts.handlers())),
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
        return DashboardService(group: group, connections: connections)
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
