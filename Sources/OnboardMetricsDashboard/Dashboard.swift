import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import OnboardMetricsPostgres
import OnboardMetricsStore

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
    /// Whether a request's client is the address a proxy forwarded (`--trust-proxy`), for the
    /// sign-in limiter and the log; else the connection's peer.
    package let trustProxy: Bool

    package init(
        data: DashboardData, viewers: ViewerAuthenticator, limiter: SignInLimiter = SignInLimiter(), logger: Logger,
        clock: @escaping @Sendable () -> Date = Date.init, cookieSecure: Bool = false, trustProxy: Bool = false
    ) {
        self.data = data
        self.viewers = viewers
        self.limiter = limiter
        self.logger = logger
        self.clock = clock
        self.cookieSecure = cookieSecure
        self.trustProxy = trustProxy
    }

    /// The client address of `request`: failed sign-ins are limited, and requests logged, by it.
    func client(_ request: Request, _ context: DashboardRequestContext) -> String {
        context.client(of: request, trustingProxy: trustProxy)
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
            let client = self.client(request, context)
            guard let (name, secret) = Self.basicCredentials(header) else {
                if let wait = limiter.attempt(client: client, now: clock()) { return .refused(tooMany(wait)) }
                failed(client: client, name: nil, how: "an Authorization that is not HTTP Basic")
                return .refused(DashboardError(.unauthorized, "sign in with a viewer's name and secret (HTTP Basic)"))
            }
            // Checked before (a script's every request): no bcrypt and no token, but not while
            // the address is held up (a guesser must not learn that a guess was right).
            if Self.isPrintable(name), Self.isPrintable(secret),
                let viewer = viewers.remembered(name: name, secret: secret)
            {
                if let wait = limiter.retryAfter(client: client, now: clock()) { return .refused(tooMany(wait)) }
                return .viewer(viewer)
            }
            switch try await check(name: name, secret: secret, client: client, how: "HTTP Basic") {
            case .viewer(let viewer): return .viewer(viewer)
            case .heldUp(let wait): return .refused(tooMany(wait))
            case .wrong: return .refused(Self.wrongSecret)
            case .malformed: return .refused(Self.malformed)
            }
        }
        if let token = request.cookies[Self.cookieName]?.value, let viewer = try await viewers.viewer(session: token) {
            return .viewer(viewer)
        }
        return .anonymous
    }

    /// A sign-in by the form: the session token, or why not.
    func signIn(name: String, secret: String, client: String) async throws -> Result<String, DashboardError> {
        let viewer: String
        switch try await check(name: name, secret: secret, client: client, how: "the sign-in form") {
        case .viewer(let name): viewer = name
        case .heldUp(let wait): return .failure(tooMany(wait))
        case .wrong: return .failure(Self.wrongSecret)
        case .malformed: return .failure(Self.malformed)
        }
        logger.info("viewer signed in", metadata: ["viewer": .string(viewer), "client": .string(client)])
        return .success(viewers.openSession(for: viewer))
    }

    private static let wrongSecret = DashboardError(.unauthorized, "unknown viewer or wrong secret")
    private static let malformed = DashboardError(
        .badRequest, "a viewer's name and secret hold no control characters (such as NUL)")

    /// What a check of a name and secret found.
    private enum Check {
        case viewer(String)
        case wrong
        /// A name or secret with a control character: refused unchecked, counted as a failure.
        case malformed
        /// Refused before the check: no token left for the address, for this many seconds.
        case heldUp(TimeInterval)
    }

    /// Checks a name and secret under the limiter: a token taken first (none left: held up),
    /// given back when the check succeeds or cannot be made; a failure keeps it and is logged.
    private func check(name: String, secret: String, client: String, how: String) async throws -> Check {
        if let wait = limiter.attempt(client: client, now: clock()) { return .heldUp(wait) }
        // bcrypt reads a secret up to its first NUL (so `SECRET\0junk` was SECRET) and PostgreSQL
        // refuses a NUL in text (a 500 or 503): no name or secret has a control character.
        guard Self.isPrintable(name), Self.isPrintable(secret) else {
            failed(client: client, name: name, how: how)
            return .malformed
        }
        let viewer: String?
        do {
            viewer = name.isEmpty || secret.isEmpty ? nil : try await viewers.verify(name: name, secret: secret)
        } catch {
            limiter.succeeded(client: client, now: clock())
            throw error
        }
        guard let viewer else {
            failed(client: client, name: name, how: how)
            return .wrong
        }
        limiter.succeeded(client: client, now: clock())
        return .viewer(viewer)
    }

    /// Logs a failed sign-in — the name tried (``loggedName(_:)``) and the address, never the
    /// secret (its token was taken by the attempt).
    private func failed(client: String, name: String?, how: String) {
        var metadata: Logger.Metadata = ["client": .string(client), "via": .string(how)]
        if let name { metadata["viewer"] = .string(Self.loggedName(name)) }
        logger.warning("failed sign-in", metadata: metadata)
    }

    /// Characters of a failed sign-in's name the log keeps.
    static let loggedNameLength = 8

    /// A failed sign-in's name as the log shows it: the first ``loggedNameLength`` characters
    /// and "…", in its debug form (quoted, control characters escaped: a name is whatever a client
    /// sent). A name shaped like a key — an app key or a viewer's secret, which clients send as
    /// the Basic user name as Segment's SDKs send a write key, or any long token — is not shown
    /// at all, not even its start: the log says only that one was tried.
    static func loggedName(_ name: String) -> String {
        if looksLikeKey(name) { return "(a key-shaped name, not logged)" }
        let shown = name.count > loggedNameLength ? String(name.prefix(loggedNameLength)) + "…" : name
        return shown.debugDescription
    }

    /// Whether `name` looks like a secret rather than a viewer's name: it starts as app keys or
    /// viewers' secrets do, or it is 20 characters or more of base64url (hex too), a digit among
    /// them, and nothing else (a write key of another system; a long name is only cut short).
    static func looksLikeKey(_ name: String) -> Bool {
        if name.hasPrefix(AppKey.keyPrefix) || name.hasPrefix(ViewerStore.secretPrefix) { return true }
        let digits = name.unicodeScalars.filter { ("0"..."9").contains($0) }.count
        return name.count >= 20 && digits > 0
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_")
            }
    }

    /// Whether `text` holds no control character (Unicode's Cc: NUL, line breaks, tabs, DEL, C1).
    static func isPrintable(_ text: String) -> Bool {
        !text.unicodeScalars.contains { $0.properties.generalCategory == .control }
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
