import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import OnboardMetricsPostgres

/// The dashboard's decisions: who is signed in, what a failed sign-in costs, and how answers and
/// errors look. ``DashboardRouter`` maps the routes onto it.
package final class Dashboard: Sendable {
    /// The cookie a sign-in sets: a random session token, HttpOnly and SameSite=Strict.
    package static let cookieName = "om_dashboard"

    package let data: DashboardData
    package let viewers: ViewerAuthenticator
    package let limiter: SignInLimiter
    package let logger: Logger
    package let clock: @Sendable () -> Date
    /// Whether the session cookie carries `Secure` (browsers then send it over HTTPS only): for a
    /// dashboard behind a TLS-terminating proxy.
    package let cookieSecure: Bool

    package init(
        data: DashboardData, viewers: ViewerAuthenticator, limiter: SignInLimiter = SignInLimiter(), logger: Logger,
        clock: @escaping @Sendable () -> Date = Date.init, cookieSecure: Bool = false
    ) {
        self.data = data
        self.viewers = viewers
        self.limiter = limiter
        self.logger = logger
        self.clock = clock
        self.cookieSecure = cookieSecure
    }

    /// The session cookie holding `token` (an empty token with max-age 0 clears it).
    func sessionCookie(_ token: String, maxAge: Int) -> Cookie {
        Cookie(
            name: Self.cookieName, value: token, maxAge: maxAge, path: "/", secure: cookieSecure, httpOnly: true,
            sameSite: .strict)
    }

    /// Who a request comes from.
    enum Caller {
        case viewer(String)
        case anonymous
        case refused(DashboardError)
    }

    /// The viewer of a request: HTTP Basic (name and secret) first, else the session cookie. Any
    /// other `Authorization` (an app key as Bearer) is refused and counted as a failed sign-in.
    func caller(_ request: Request, _ context: DashboardRequestContext) async throws -> Caller {
        if let header = request.headers[.authorization] {
            let client = context.clientAddress
            if let wait = limiter.retryAfter(client: client, now: clock()) { return .refused(tooMany(wait)) }
            guard let credentials = Self.basicCredentials(header) else {
                failed(client: client, name: nil, how: "an Authorization that is not HTTP Basic")
                return .refused(DashboardError(.unauthorized, "sign in with a viewer's name and secret (HTTP Basic)"))
            }
            let (name, secret) = credentials
            if let viewer = try await viewers.verify(name: name, secret: secret) { return .viewer(viewer) }
            failed(client: client, name: name, how: "HTTP Basic")
            return .refused(DashboardError(.unauthorized, "unknown viewer or wrong secret"))
        }
        if let token = request.cookies[Self.cookieName]?.value, let viewer = try await viewers.viewer(session: token) {
            return .viewer(viewer)
        }
        return .anonymous
    }

    /// A sign-in by the form: the session token, or why not.
    func signIn(name: String, secret: String, client: String) async throws -> Result<String, DashboardError> {
        if let wait = limiter.retryAfter(client: client, now: clock()) { return .failure(tooMany(wait)) }
        guard !name.isEmpty, !secret.isEmpty, let viewer = try await viewers.verify(name: name, secret: secret) else {
            failed(client: client, name: name, how: "the sign-in form")
            return .failure(DashboardError(.unauthorized, "unknown viewer or wrong secret"))
        }
        logger.info("viewer signed in", metadata: ["viewer": .string(viewer), "client": .string(client)])
        return .success(viewers.openSession(for: viewer))
    }

    /// Logs a failed sign-in — the name tried and the address, never the secret — and counts it.
    private func failed(client: String, name: String?, how: String) {
        limiter.recordFailure(client: client, now: clock())
        var metadata: Logger.Metadata = ["client": .string(client), "via": .string(how)]
        // A name is whatever a client sent: its debug form keeps control characters out of the log.
        if let name { metadata["viewer"] = .string(String(name.prefix(200)).debugDescription) }
        logger.warning("failed sign-in", metadata: metadata)
    }

    private func tooMany(_ wait: TimeInterval) -> DashboardError {
        let seconds = max(1, Int(wait.rounded(.up)))
        return DashboardError(
            .tooManyAttempts, "too many failed sign-ins from this address; try again in \(seconds) s",
            retryAfter: seconds)
    }

    /// Name and secret of `Basic base64(name:secret)`; `nil` for any other header.
    static func basicCredentials(_ header: String) -> (String, String)? {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic",
            let decoded = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)),
            let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// The error a failure becomes: ours as they are; anything else (a database error, whose text
    /// may name hosts) is logged in full and shown as a plain 503 or 500.
    func visible(_ error: any Error, path: String) -> DashboardError {
        if let error = error as? DashboardError { return error }
        logger.error("request failed", metadata: ["path": .string(path), "error": .string("\(error)")])
        if error is PostgresError {
            return DashboardError(.unavailable, "the database could not be read; the dashboard's log says why")
        }
        return DashboardError(.internalError, "the page could not be made; the dashboard's log says why")
    }
}
