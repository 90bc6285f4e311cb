import Hummingbird
import NIOCore
import OnboardMetricsHTTP

/// The dashboard's request context: Hummingbird's basics and the client's address, which failed
/// sign-ins are rate-limited by.
package struct DashboardRequestContext: RequestContext, RemoteAddressRequestContext {
    package var coreContext: CoreRequestContextStorage
    /// The connected peer; `nil` in HummingbirdTesting's router client.
    package let remoteAddress: SocketAddress?

    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// The client's IP address (no port: a new connection must not reset the limit), or "unknown".
    /// Forwarded-for headers are not trusted here: any client can write them.
    package var clientAddress: String { remoteAddress?.ipAddress ?? "unknown" }

    /// The client of `request`: with `trustingProxy` (`--trust-proxy`, every request comes
    /// through a proxy that appends its client's address) the address the proxy forwarded, when
    /// it forwarded one (``ForwardedClient``); else ``clientAddress``.
    package func client(of request: Request, trustingProxy: Bool) -> String {
        guard trustingProxy, let forwarded = ForwardedClient.address(in: request.headers) else { return clientAddress }
        return forwarded
    }
}
