import Foundation
import OnboardMetricsPostgres
import Testing

@testable import OnboardMetricsDashboard

/// Sessions opened by the sign-in form, on a clock the test moves (nothing here reads the
/// database: the viewer's recheck is set beyond the test's span).
@Suite struct ViewerAuthenticatorTests {
    @Test func usingASessionExtendsItUpToItsLifetime() async throws {
        let clock = SetClock(Date(timeIntervalSince1970: 1_000_000))
        var settings = ViewerAuthenticator.Settings()
        settings.sessionTTL = 100
        settings.sessionLifetime = 250
        settings.recheckAfter = 1_000_000
        let viewers = ViewerAuthenticator(
            database: PostgresConfiguration("host=unused.invalid"), settings: settings, clock: { clock.now })
        let token = viewers.openSession(for: "ana")
        // Used every 90 s, within the 100 s it lasts unused: valid until 250 s after the sign-in.
        for elapsed in [90.0, 180, 240, 249] {
            clock.set(Date(timeIntervalSince1970: 1_000_000 + elapsed))
            #expect(try await viewers.viewer(session: token) == "ana", "at \(elapsed) s")
        }
        clock.set(Date(timeIntervalSince1970: 1_000_000 + 251))
        #expect(try await viewers.viewer(session: token) == nil)
        // Unused for longer than the idle time, a fresh session ends sooner.
        let other = viewers.openSession(for: "ana")
        clock.set(Date(timeIntervalSince1970: 1_000_000 + 251 + 101))
        #expect(try await viewers.viewer(session: other) == nil)
    }
}

/// A clock the test sets.
private final class SetClock: @unchecked Sendable {
    // Unchecked: `current` is touched only under `lock`.
    private let lock = NSLock()
    private var current: Date

    init(_ start: Date) { current = start }

    var now: Date { lock.withLock { current } }

    func set(_ date: Date) { lock.withLock { current = date } }
}
