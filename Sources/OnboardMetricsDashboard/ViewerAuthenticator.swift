import Crypto
import Foundation
import NIOConcurrencyHelpers
import OnboardMetricsPostgres
import OnboardMetricsStore

/// Who may read the dashboard: viewers (``ViewerStore``) by HTTP Basic, or by a session a sign-in
/// form opened. App keys are never looked at here, so they never open the dashboard.
///
/// Sessions are random tokens held in this process's memory with an expiry: a restart signs every
/// browser out (Basic keeps working), and several dashboard processes do not share them.
package final class ViewerAuthenticator: Sendable {
    /// How long things are remembered.
    package struct Settings: Sendable {
        /// How long a successful Basic check is remembered (see ``verify(name:secret:)``).
        package var verifiedTTL: TimeInterval = 60
        /// How long a signed-in browser session lasts without being used.
        package var sessionTTL: TimeInterval = 8 * 3_600
        /// How long a session lasts however much it is used: a token that leaked cannot be kept
        /// alive by using it. The session cookie lives as long.
        package var sessionLifetime: TimeInterval = 12 * 3_600
        /// How often a session's viewer is looked up again, so a revoked viewer is signed out.
        package var recheckAfter: TimeInterval = 60

        package init() {}
    }

    private struct Session: Sendable {
        var name: String
        var expires: Date
        var checked: Date
        /// When the session was opened: it expires ``Settings/sessionLifetime`` after, at the latest.
        var opened: Date
    }

    private let database: PostgresConfiguration
    private let settings: Settings
    private let clock: @Sendable () -> Date
    /// SHA-256(name, NUL, secret) → (name, until when). bcrypt costs about a quarter second on
    /// purpose (to slow guessing), which a script or a page's every request must not pay: a
    /// successful check is remembered briefly, keyed by a digest so no secret is held in memory.
    /// A wrong secret is never remembered, so guessing still pays bcrypt on every try.
    private let verified = NIOLockedValueBox<[Data: (name: String, until: Date)]>([:])
    private let sessions = NIOLockedValueBox<[String: Session]>([:])

    package init(
        database: PostgresConfiguration, settings: Settings = Settings(),
        clock: @escaping @Sendable () -> Date = Date.init
    ) {
        self.database = database
        self.settings = settings
        self.clock = clock
    }

    /// The viewer's name when `secret` is the secret of the valid viewer `name`; `nil` otherwise.
    /// A revoked viewer's remembered check lasts at most ``Settings/verifiedTTL``.
    /// - Throws: `PostgresError` when the viewers cannot be read.
    package func verify(name: String, secret: String) async throws -> String? {
        if let remembered = remembered(name: name, secret: secret) { return remembered }
        let key = Self.key(name: name, secret: secret)
        let now = clock()
        let database = database
        // bcrypt and libpq both block: a blocking-work thread, never the cooperative pool.
        let viewer = try await BlockingIO.run {
            let connection = try PostgresConnection(configuration: database)
            defer { connection.close() }
            return try ViewerStore().verify(name: name, secret: secret, on: connection)
        }
        guard let viewer else { return nil }
        let until = now.addingTimeInterval(settings.verifiedTTL)
        verified.withLockedValue { cache in
            if cache.count > 10_000 { cache = cache.filter { $0.value.until > now } }
            cache[key] = (viewer.name, until)
        }
        return viewer.name
    }

    /// The viewer's name when `name` and `secret` were verified within ``Settings/verifiedTTL``;
    /// `nil` otherwise (nothing is read: no bcrypt, no database).
    package func remembered(name: String, secret: String) -> String? {
        let key = Self.key(name: name, secret: secret)
        let now = clock()
        return verified.withLockedValue { cache -> String? in
            guard let entry = cache[key] else { return nil }
            if entry.until > now { return entry.name }
            cache[key] = nil
            return nil
        }
    }

    private static func key(name: String, secret: String) -> Data {
        Data(SHA256.hash(data: Data((name + "\u{0}" + secret).utf8)))
    }

    /// Opens a session for a viewer who signed in; returns its token (for the cookie).
    package func openSession(for name: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        let now = clock()
        sessions.withLockedValue { sessions in
            if sessions.count > 10_000 { sessions = sessions.filter { $0.value.expires > now } }
            sessions[token] = Session(name: name, expires: expiry(opened: now, usedAt: now), checked: now, opened: now)
        }
        return token
    }

    /// The viewer of a session token; `nil` when unknown, expired, or its viewer was revoked.
    /// Using a session extends it, up to ``Settings/sessionLifetime`` after it was opened.
    /// - Throws: `PostgresError` when the viewer must be looked up again and cannot be.
    package func viewer(session token: String) async throws -> String? {
        let now = clock()
        let session = sessions.withLockedValue { sessions -> Session? in
            guard let session = sessions[token] else { return nil }
            guard session.expires > now else {
                sessions[token] = nil
                return nil
            }
            return session
        }
        guard var session else { return nil }
        if now.timeIntervalSince(session.checked) >= settings.recheckAfter {
            let (database, name) = (database, session.name)
            let valid = try await BlockingIO.run {
                let connection = try PostgresConnection(configuration: database)
                defer { connection.close() }
                return try ViewerStore().isValid(name: name, on: connection)
            }
            guard valid else {
                endSession(token)
                return nil
            }
            session.checked = now
        }
        session.expires = expiry(opened: session.opened, usedAt: now)
        let updated = session
        // Only if still there: a sign-out while the viewer was looked up again must stay one.
        let kept = sessions.withLockedValue { sessions -> Bool in
            guard sessions[token] != nil else { return false }
            sessions[token] = updated
            return true
        }
        return kept ? session.name : nil
    }

    /// When a session opened at `opened` and last used at `used` ends: ``Settings/sessionTTL``
    /// after its use, ``Settings/sessionLifetime`` after it opened at the latest.
    private func expiry(opened: Date, usedAt used: Date) -> Date {
        min(used.addingTimeInterval(settings.sessionTTL), opened.addingTimeInterval(settings.sessionLifetime))
    }

    /// Ends a session (sign out).
    package func endSession(_ token: String) {
        _ = sessions.withLockedValue { $0.removeValue(forKey: token) }
    }

    /// How long a session cookie may live in the browser: as long as the session can.
    package var sessionLifetime: TimeInterval { settings.sessionLifetime }
}
