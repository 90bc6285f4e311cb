import Foundation
import OnboardMetricsPostgres
import OnboardMetricsTesting
import Testing

@testable import OnboardMetricsDashboard

/// Sessions opened by the sign-in form, on a clock the test moves (nothing here reads the
/// database: the viewer's recheck is set beyond the test's span).
@Suite struct ViewerAuthenticatorTests {
    @Test func usingASessionExtendsItUpToItsLifetime() async throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_000_000))
        var settings = ViewerAuthenticator.Settings()
        settings.sessionTTL = 100
        settings.sessionLifetime = 250
        settings.recheckAfter = 1_000_000
        let viewers = ViewerAuthenticator(
            database: PostgresConfiguration("host=unused.invalid"), settings: settings, clock: { clock.now })
        let token = viewers.openSession(for: "ana")
        // Used every 90 s, within the 100 s it lasts unused: valid until 250 s after the sign-in.
        let start = clock.now
        for step in [90.0, 90, 60, 9] {  // 90, 180, 240, 249 s
            clock.advance(by: step)
            #expect(try await viewers.viewer(session: token) == "ana", "at \(clock.now.timeIntervalSince(start)) s")
        }
        clock.advance(by: 2)  // 251 s
        #expect(try await viewers.viewer(session: token) == nil)
        // Unused for longer than the idle time, a fresh session ends sooner.
        let other = viewers.openSession(for: "ana")
        clock.advance(by: 101)
        #expect(try await viewers.viewer(session: other) == nil)
    }
}
