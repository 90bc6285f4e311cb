import ArgumentParser
import Foundation
import OnboardMetrics

/// `funnel dashboard`'s limits on its connections: the collector's time limits (same names and
/// defaults as `funnel serve`'s) and caps on connections per client and in all.
struct ConnectionOptions: ParsableArguments {
    @Option(help: "Seconds a client may take from a request's first byte to the end of its headers.")
    var headerTimeout = 10.0

    @Option(help: "Seconds a client may take to send a request's body, once its headers are in.")
    var bodyTimeout = 30.0

    @Option(help: "Seconds a kept-alive connection may wait for its next request.")
    var idleTimeout = 60.0

    @Option(
        help: ArgumentHelp(
            "Connections one client address (an IPv6 one by its /64) may hold open at once.",
            discussion: "Beyond it a new connection is answered 503 and closed as soon as it is accepted, so one "
                + "client cannot take every place: the others, a health check among them, still get in."))
    var maxConnectionsPerClient = DashboardService.defaultConnectionsPerClient

    @Option(
        help: ArgumentHelp(
            "Connections the server holds open at once, from all clients.",
            discussion: "Beyond it a new connection is answered 503 and closed. At most the file limit (ulimit -n) "
                + "less \(DashboardService.reservedDescriptors), which the database connections need."))
    var maxConnections = DashboardService.defaultConnections

    func validate() throws {
        for (name, value) in [
            ("--header-timeout", headerTimeout), ("--body-timeout", bodyTimeout), ("--idle-timeout", idleTimeout),
        ]
        where !(value > 0 && value <= 86_400) {
            throw ValidationError("\(name) must be between 0 and 86400 seconds (not 0)")
        }
        guard (1...1_000_000).contains(maxConnectionsPerClient) else {
            throw ValidationError("--max-connections-per-client must be between 1 and 1000000")
        }
        guard (1...1_000_000).contains(maxConnections) else {
            throw ValidationError("--max-connections must be between 1 and 1000000")
        }
    }

    /// Sets the time limits and caps of `settings`.
    func apply(to settings: inout DashboardService.Settings) {
        settings.timeouts = ConnectionTimeouts(
            header: .nanoseconds(Int64(headerTimeout * 1e9)), body: .nanoseconds(Int64(bodyTimeout * 1e9)),
            idle: .nanoseconds(Int64(idleTimeout * 1e9)))
        settings.connectionsPerClient = maxConnectionsPerClient
        settings.connections = maxConnections
    }
}
