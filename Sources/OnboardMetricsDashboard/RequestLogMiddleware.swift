import Foundation
import Hummingbird
import Logging

/// One log line per request: method, path, status and the time it took (and the client), at
/// info. The path is logged without its query; sign-ins carry their secret in a POST body or a
/// header, neither of which is logged.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = DashboardRequestContext

    let logger: Logger
    /// Whether the client logged is the address a trusted proxy forwarded (`--trust-proxy`).
    let trustProxy: Bool

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(request, context, status: Int(response.status.code), since: started)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            log(request, context, status: Int(status), since: started)
            throw error
        }
    }

    private func log(_ request: Request, _ context: Context, status: Int, since started: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - started
        let milliseconds =
            Double(elapsed.components.seconds) * 1_000 + Double(elapsed.components.attoseconds) / 1e15
        logger.info(
            "\(request.method.rawValue) \(request.uri.path) \(status) \(String(format: "%.1f", milliseconds)) ms",
            metadata: ["client": .string(context.client(of: request, trustingProxy: trustProxy))])
    }
}
