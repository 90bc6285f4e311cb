import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

@testable import OnboardMetricsDashboard
@testable import OnboardMetricsPostgres
@testable import OnboardMetricsStore

/// What a sign-in name can do (issue 59): a failed one is logged cut short, and one shaped like a
/// key — an app key sent as the Basic user name, as Segment's SDKs send a write key — is not
/// logged at all (P3-6).
@Suite struct DashboardSignInNameTests {
    /// The seeded dashboard with its log kept in `capture`.
    static func application(_ seeded: DashboardFixture.Seeded, capture: LogCapture) -> some ApplicationProtocol {
        let dashboard = Dashboard(
            data: DashboardData(database: seeded.configuration),
            viewers: ViewerAuthenticator(database: seeded.configuration), logger: capture.logger(),
            clock: { DashboardFixture.now })
        return Application(router: DashboardRouter.make(dashboard))
    }

    @Test func aFailedSignInsNameIsLoggedCutShortAndAKeyNeverAtAll() async throws {
        let seeded = try await DashboardFixture.seeded.value
        let capture = LogCapture()
        let app = Self.application(seeded, capture: capture)
        let segmentWriteKey = "q8Fz3kPw0LmN7xYtR2vB9cDs"
        let longName = "margarethe-from-accounting"
        try await app.test(.router) { client in
            // The app key as the Basic user name (no secret), a write key of another system, a viewer's
            // secret typed into the name field of the form, a long name.
            for name in [seeded.appKey, segmentWriteKey, longName] {
                try await client.execute(
                    uri: "/", method: .get, headers: [.authorization: DashboardFixture.basic(name, "")]
                ) { #expect($0.status == .unauthorized) }
            }
            try await client.execute(
                uri: "/login", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "name=\(DashboardQuery.escape(seeded.secret))&secret=guess")
            ) { #expect($0.status == .unauthorized) }
        }
        let log = capture.text
        #expect(log.components(separatedBy: "failed sign-in").count - 1 == 4, "\(log)")
        for secret in [seeded.appKey, segmentWriteKey, seeded.secret] {
            #expect(!log.contains(String(secret.prefix(8))), "\(log)")
        }
        #expect(log.components(separatedBy: "key-shaped").count - 1 == 3, "\(log)")
        #expect(log.contains("viewer=\"margaret…\""), "\(log)")
        #expect(!log.contains(longName))
    }

    @Test func namesShapedLikeKeysAreToldApart() {
        #expect(Dashboard.looksLikeKey(AppKey.newSecret()))
        #expect(Dashboard.looksLikeKey("om_short"))
        #expect(Dashboard.looksLikeKey("omv_" + String(repeating: "x", count: 43)))
        #expect(Dashboard.looksLikeKey("0123456789abcdef0123456789abcdef"))
        #expect(!Dashboard.looksLikeKey("ana"))
        #expect(!Dashboard.looksLikeKey("margarethe-from-accounting"))
        #expect(!Dashboard.looksLikeKey("Ana María López García 1"))
        #expect(Dashboard.loggedName("ana") == "\"ana\"")
        #expect(Dashboard.loggedName("ana\u{7}bell-ringer") == "\"ana\\u{07}bell…\"")
    }
}
