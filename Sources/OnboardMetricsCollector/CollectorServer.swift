import Hummingbird
import Logging
import NIOCore
import OnboardMetricsHTTP
import OnboardMetricsSDK
import Prometheus

/// The collector as an HTTP server: Hummingbird serving ``Collector``'s routes (native, Segment
/// and PostHog batches, `/healthz`, `/metrics`) with a connection's time limits. The application
/// is a `Service`: run it in a `ServiceGroup` after the recorder, so that a graceful shutdown
/// answers the requests in flight before the recorder flushes.
package enum CollectorServer {
    /// The application for `collector`, listening on `host:port` (0: a free port).
    /// - Parameters:
    ///   - metrics: the registry `GET /metrics` prints (``ServeMetrics/bootstrap()``).
    ///   - onServerRunning: called with the port once the server listens.
    package static func application(
        collector: Collector, metrics: PrometheusCollectorRegistry, host: String, port: Int,
        timeouts: ConnectionTimeouts, logger: Logger, onServerRunning: @escaping @Sendable (Int) async -> Void
    ) -> Application<RouterResponder<BasicRequestContext>> {
        Application(
            router: CollectorRouter.make(collector, metrics: metrics),
            server: .http1(configuration: .init(additionalChannelHandlers: timeouts.handlers())),
            configuration: .init(
                address: .hostname(host, port: port), serverName: "funnel/\(OnboardMetricsVersion.current)"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
    }
}
