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
/// logged at all (P3-6); a NUL or other control character in a name or secret is refused with
/// 400 and counted as a failed sign-in (P3-7: it was a 500 with an empty body or a 503, and
/// `SECRET\0junk` signed in, bcrypt reading up to the NUL).
@Suite struct DashboardSignInNameTests {
    /// The seeded dashboard with its log kept in `capture`.
    static func application(
        _ seeded: DashboardFixture.Seeded, capture: LogCapture, limiter: SignInLimiter = SignInLimiter()
    ) -> some ApplicationProtocol {
        let dashboard = Dashboard(
            data: DashboardData(database: seeded.configuration),
            viewers: ViewerAuthenticator(database: seeded.configuration), limiter: limiter,
            logger: capture.logger(), clock: { DashboardFixture.now })
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

    @Test func controlCharactersInANameOrSecretAreRefusedAndCounted() async throws {
        let seeded = try await DashboardFixture.seeded.value
        let capture = LogCapture()
        let app = Self.application(seeded, capture: capture, limiter: SignInLimiter(rate: 1.0 / 3_600, burst: 4))
        let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        try await app.test(.router) { client in
            // The right secret with junk after a NUL: bcrypt would stop at the NUL.
            try await client.execute(
                uri: "/?format=json", method: .get,
                headers: [.authorization: DashboardFixture.basic(seeded.viewer, seeded.secret + "\u{0}junk")]
            ) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body).contains("control characters"))
            }
            try await client.execute(
                uri: "/login", method: .post, headers: form,
                body: ByteBuffer(string: "name=ana&secret=\(DashboardQuery.escape(seeded.secret))%00junk")
            ) { response in
                #expect(response.status == .badRequest)
                #expect(response.headers[.setCookie] == nil)
                #expect(String(buffer: response.body).contains("control characters"))
            }
            // In the name, by the form and by Basic (a line break too).
            try await client.execute(
                uri: "/login", method: .post, headers: form,
                body: ByteBuffer(string: "name=an%00a&secret=\(DashboardQuery.escape(seeded.secret))")
            ) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body).contains("control characters"))
            }
            try await client.execute(
                uri: "/", method: .get, headers: [.authorization: DashboardFixture.basic("ana\n", seeded.secret)]
            ) { #expect($0.status == .badRequest) }
            // Four failures: the burst is spent, and even the right secret waits.
            try await client.execute(
                uri: "/", method: .get, headers: [.authorization: DashboardFixture.basic(seeded.viewer, seeded.secret)]
            ) { #expect($0.status == .tooManyRequests) }
        }
        #expect(capture.text.components(separatedBy: "failed sign-in").count - 1 == 4, "\(capture.text)")
        #expect(capture.text.contains("viewer=\"an\\0a\""), "\(capture.text)")
    }
}
