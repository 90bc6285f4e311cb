import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import OnboardMetricsDashboard
@testable import OnboardMetricsPostgres
@testable import OnboardMetricsStore

/// The dashboard's routes driven in process through HummingbirdTesting's router client against
/// the real test database: every page, its JSON twin, sign-in by HTTP Basic and by the form,
/// refusals (app keys, wrong secrets, too many failures) and errors.
@Suite struct DashboardRoutesTests {
    @Test func pagesAnswerAViewerInHTMLAndJSON() async throws {
        let seeded = try await DashboardFixture.seeded.value
        let app = DashboardFixture.application(seeded.configuration)
        let viewer: HTTPFields = [.authorization: DashboardFixture.basic(seeded.viewer, seeded.secret)]
        try await app.test(.router) { client in
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
            // Home: the stored flow with its 7- and 30-day figures, the experiment, as of the clock.
            try await client.execute(uri: "/", method: .get, headers: viewer) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                let html = String(buffer: response.body)
                #expect(html.contains("<meta name=\"viewport\""))
                #expect(html.contains("As of 2026-02-02T00:00:00Z; newest event 2026-0"))
                #expect(html.contains("href=\"/flows/health-study\""))
                #expect(html.contains("href=\"/experiments/consent-copy\""))
                // Offline: no scripts, no outside stylesheet, image or font.
                #expect(!html.contains("<script") && !html.contains("<link") && !html.contains("src=\"http"))
            }
            var home: [String: Any] = [:]
            try await client.execute(uri: "/?format=json", method: .get, headers: viewer) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                home = try #require(
                    try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
            }
            #expect(home["as_of"] as? String == "2026-02-02T00:00:00Z")
            #expect((home["newest_event"] as? String)?.hasPrefix("2026-0") == true)
            let flows = try #require(home["flows"] as? [[String: Any]])
            #expect(flows.compactMap { $0["id"] as? String } == ["health-study", "spotlight-share"])
            let healthStudy = flows.first { $0["id"] as? String == "health-study" }
            let last30 = try #require(healthStudy?["last_30_days"] as? [String: Any])
            let last7 = try #require(healthStudy?["last_7_days"] as? [String: Any])
            let started30 = try #require(last30["started"] as? Int)
            let started7 = try #require(last7["started"] as? Int)
            // 30 days reach back before the data began: every session; 7 days only the last week's.
            #expect(started30 > 300 && started7 > 0 && started7 < started30)
            #expect(((home["experiments"] as? [[String: Any]])?.first?["key"] as? String) == "consent-copy")
            // The 30-day figure is the flow page's over the same range (the same read).
            try await client.execute(
                uri: "/flows/health-study?since=2026-01-03&until=2026-02-02", method: .get,
                headers: [.authorization: viewer[.authorization] ?? "", .accept: "application/json"]
            ) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                let report = try #require(
                    try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
                let groups = try #require(report["groups"] as? [[String: Any]])
                let totals = try #require(groups.first?["totals"] as? [String: Any])
                #expect(totals["started"] as? Int == started30)
                #expect(totals["completed"] as? Int == last30["completed"] as? Int)
            }
            // A flow page with filters: the breakdown's groups, the form holding the query.
            try await client.execute(
                uri: "/flows/health-study?since=2026-01-10&until=2026-01-20&per=user&breakdown=platform",
                method: .get, headers: viewer
            ) { response in
                #expect(response.status == .ok)
                let html = String(buffer: response.body)
                #expect(html.contains("Funnel: health-study v"))
                #expect(html.contains("platform = ios"))
                #expect(html.contains("name=\"since\" value=\"2026-01-10\""))
                #expect(html.contains("<option selected>user</option>"))
                #expect(html.contains("format=json"))
                let newest = try #require(HTTPField.Name("X-Newest-Event"))
                #expect(response.headers[newest]?.hasPrefix("2026-0") == true)
            }
            try await client.execute(uri: "/experiments/consent-copy", method: .get, headers: viewer) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("Experiment consent-copy"))
            }
            try await client.execute(
                uri: "/experiments/consent-copy?metric=step:consent&format=json", method: .get, headers: viewer
            ) { response in
                #expect(response.status == .ok)
                let report = try #require(
                    try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
                #expect(report["key"] as? String == "consent-copy")
                #expect((report["metrics"] as? [[String: Any]])?.first?["metric"] as? String == "step:consent")
            }
            // Errors: unknown flow and experiment, options the CLI would refuse.
            for (uri, status) in [
                ("/flows/nope", HTTPResponse.Status.notFound), ("/experiments/nope", .notFound),
                ("/flows/health-study?since=yesterday", .badRequest), ("/flows/health-study?per=team", .badRequest),
                ("/experiments/consent-copy?metric=bogus", .badRequest), ("/nowhere", .notFound),
            ] {
                try await client.execute(uri: uri, method: .get, headers: viewer) { response in
                    #expect(response.status == status, "\(uri)")
                }
            }
            try await client.execute(
                uri: "/flows/health-study?since=yesterday&format=json", method: .get, headers: viewer
            ) { response in
                let answer = try #require(
                    try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: [String: String]])
                #expect(answer["error"]?["code"] == "bad_request")
                #expect(answer["error"]?["message"]?.contains("since") == true)
            }
        }
    }

    @Test func onlyViewersGetIn() async throws {
        let seeded = try await DashboardFixture.seeded.value
        let app = DashboardFixture.application(seeded.configuration)
        try await app.test(.router) { client in
            // No credentials: a browser is sent to the form, a script gets 401 with a Basic challenge.
            try await client.execute(uri: "/flows/health-study?per=user", method: .get, headers: [.accept: "text/html"])
            { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/login?next=%2Fflows%2Fhealth-study%3Fper%3Duser")
            }
            try await client.execute(uri: "/?format=json", method: .get) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.wwwAuthenticate]?.hasPrefix("Basic ") == true)
            }
            // An app key opens the collector, never the dashboard: as Bearer or as Basic.
            for header in [
                "Bearer \(seeded.appKey)", DashboardFixture.basic(seeded.appKey, ""),
                DashboardFixture.basic(seeded.viewer, seeded.appKey),
            ] {
                try await client.execute(uri: "/", method: .get, headers: [.authorization: header]) { response in
                    #expect(response.status == .unauthorized)
                    #expect(!String(buffer: response.body).contains(seeded.appKey))
                }
            }
            // A wrong secret: 401, and the page shows neither the secret nor the database.
            let wrong = seeded.secret + "x"
            try await client.execute(
                uri: "/", method: .get, headers: [.authorization: DashboardFixture.basic(seeded.viewer, wrong)]
            ) { response in
                #expect(response.status == .unauthorized)
                let body = String(buffer: response.body)
                #expect(!body.contains(wrong) && !body.contains(seeded.url) && !body.contains("dbname"))
            }
            // The form: a wrong secret is 401 with the form again; the right one sets the cookie.
            try await client.execute(uri: "/login", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("action=\"/login\""))
            }
            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            try await client.execute(
                uri: "/login", method: .post, headers: form,
                body: ByteBuffer(string: "name=ana&secret=\(DashboardQuery.escape(wrong))&next=%2F")
            ) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.setCookie] == nil)
            }
            var cookie = ""
            try await client.execute(
                uri: "/login", method: .post, headers: form,
                body: ByteBuffer(
                    string: "name=ana&secret=\(DashboardQuery.escape(seeded.secret))&next=%2F%2Fevil.example%2F")
            ) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/")
                let setCookie = try #require(response.headers[.setCookie])
                #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"))
                #expect(setCookie.contains("Path=/"))
                #expect(!setCookie.contains("Secure"))  // only with --cookie-secure
                cookie = String(setCookie.prefix { $0 != ";" })
            }
            #expect(cookie.hasPrefix("\(Dashboard.cookieName)=") && cookie.count > 40)
            try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.status == .ok)
            }
            // A made-up session token is nobody's.
            try await client.execute(
                uri: "/?format=json", method: .get, headers: [.cookie: "\(Dashboard.cookieName)=00ff"]
            ) { response in
                #expect(response.status == .unauthorized)
            }
            // Signing out ends the session.
            try await client.execute(uri: "/logout", method: .post, headers: [.cookie: cookie]) { response in
                #expect(response.status == .seeOther)
            }
            try await client.execute(uri: "/?format=json", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.status == .unauthorized)
            }
        }
    }

    /// A sign-in form posted from another site is refused (a page elsewhere could sign a browser
    /// in as its own viewer); the dashboard's own form, behind a proxy too, and a script get in.
    /// Live, so the origin is compared with the `Host` the HTTP/1 request carried.
    @Test func signInFormsFromOtherSitesAreRefused() async throws {
        let seeded = try await DashboardFixture.seeded.value
        let app = DashboardFixture.application(seeded.configuration)
        let body = "name=ana&secret=\(DashboardQuery.escape(seeded.secret))&next=%2F"
        try await app.test(.live) { client in
            func post(_ path: String, _ headers: HTTPFields) async throws -> (HTTPResponse.Status, String?) {
                var fields: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
                fields.append(contentsOf: headers)
                return try await client.execute(
                    uri: path, method: .post, headers: fields, body: ByteBuffer(string: body)
                ) { ($0.status, $0.headers[.setCookie]) }
            }
            let fetchSite = try #require(HTTPField.Name("Sec-Fetch-Site"))
            let forwarded = try #require(HTTPField.Name("X-Forwarded-Host"))
            // Sec-Fetch-Site decides where a browser sends it; without it, Origin against Host.
            for refused: HTTPFields in [
                [.origin: "https://evil.example"], [.origin: "null"], [.origin: "http://localhost:8443"],
                [fetchSite: "cross-site"], [fetchSite: "cross-site", .origin: "http://localhost"],
                [fetchSite: "same-site"], [.origin: "https://evil.example", forwarded: "dash.example"],
            ] {
                let (status, cookie) = try await post("/login", refused)
                #expect(status == .forbidden, "\(refused)")
                #expect(cookie == nil, "\(refused)")
                #expect(try await post("/logout", refused).0 == .forbidden, "\(refused)")
            }
            // A proxy that rewrites Host, a privacy setting's "null" origin, default ports.
            for allowed: HTTPFields in [
                [:], [.origin: "http://localhost"], [.origin: "http://LOCALHOST", fetchSite: "same-origin"],
                [.origin: "https://dash.example", forwarded: "dash.example"], [fetchSite: "none"],
                [fetchSite: "same-origin", .origin: "null"],
                [fetchSite: "same-origin", .origin: "https://dash.example"],
                [.origin: "http://localhost:80"], [.origin: "https://dash.example", forwarded: "dash.example:443"],
            ] {
                let (status, cookie) = try await post("/login", allowed)
                #expect(status == .seeOther, "\(allowed)")
                #expect(cookie != nil, "\(allowed)")
            }
        }
    }

    /// The seeded dashboard with a limiter of two failures at once, then one an hour, and a wrong
    /// secret for its viewer.
    static func limited() async throws -> (DashboardFixture.Seeded, some ApplicationProtocol, HTTPFields) {
        let seeded = try await DashboardFixture.seeded.value
        let app = DashboardFixture.application(
            seeded.configuration, limiter: SignInLimiter(rate: 1.0 / 3_600, burst: 2))
        return (seeded, app, [.authorization: DashboardFixture.basic(seeded.viewer, "guess")])
    }

    @Test func failedSignInsFromOneAddressAreLimited() async throws {
        let (seeded, app, wrong) = try await Self.limited()
        try await app.test(.router) { client in
            for _ in 0..<2 {
                try await client.execute(uri: "/", method: .get, headers: wrong) { response in
                    #expect(response.status == .unauthorized)
                }
            }
            try await client.execute(uri: "/", method: .get, headers: wrong) { response in
                #expect(response.status == .tooManyRequests)
                #expect(response.headers[.retryAfter] == "3600")
            }
            // Spent: even the right secret waits (a guesser cannot tell it found one).
            let right: HTTPFields = [.authorization: DashboardFixture.basic(seeded.viewer, seeded.secret)]
            try await client.execute(uri: "/", method: .get, headers: right) { response in
                #expect(response.status == .tooManyRequests)
            }
            try await client.execute(
                uri: "/login", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "name=ana&secret=guess")
            ) { response in
                #expect(response.status == .tooManyRequests)
            }
        }
    }

    /// Wrong secrets sent all at once: each attempt takes its token before its check (bcrypt and
    /// a connection), so no more than the burst are checked; with the failure counted only after
    /// its check, every attempt sent meanwhile was checked.
    @Test func wrongSecretsSentAtOnceAreCheckedNoMoreThanTheBurst() async throws {
        let (_, app, wrong) = try await Self.limited()
        try await app.test(.router) { client in
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<12 {
                    group.addTask { try await client.execute(uri: "/", method: .get, headers: wrong) { $0.status } }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .unauthorized }.count == 2)
            #expect(statuses.filter { $0 == .tooManyRequests }.count == 10)
        }
    }

    @Test func aRevokedViewerIsRefusedOnceItsCheckExpires() async throws {
        let seeded = try await DashboardFixture.seeded.value
        let (name, secret) = try await TestDatabase.withConnection(seeded.configuration) { connection in
            ("carl", try ViewerStore(cost: 4).create(name: "carl", on: connection).secret)
        }
        var settings = ViewerAuthenticator.Settings()
        settings.verifiedTTL = 0
        let app = DashboardFixture.application(seeded.configuration, viewers: settings)
        let headers: HTTPFields = [.authorization: DashboardFixture.basic(name, secret), .accept: "application/json"]
        try await app.test(.router) { client in
            try await client.execute(uri: "/experiments/consent-copy", method: .get, headers: headers) { response in
                #expect(response.status == .ok)
            }
            _ = try await TestDatabase.withConnection(seeded.configuration) { try ViewerStore().revoke("carl", on: $0) }
            try await client.execute(uri: "/experiments/consent-copy", method: .get, headers: headers) { response in
                #expect(response.status == .unauthorized)
            }
        }
    }

    @Test func aDatabaseThatCannotBeReadShowsNoURLOrPassword() async throws {
        let unreachable = PostgresConfiguration(
            "postgresql://dashboard:s3cret-pw@127.0.0.1:1/onboarding?connect_timeout=2")
        let app = DashboardFixture.application(unreachable)
        try await app.test(.router) { client in
            for accept in ["text/html", "application/json"] {
                try await client.execute(
                    uri: "/", method: .get,
                    headers: [.authorization: DashboardFixture.basic("ana", "whatever"), .accept: accept]
                ) { response in
                    #expect(response.status == .serviceUnavailable)
                    let body = String(buffer: response.body)
                    #expect(!body.contains("s3cret-pw") && !body.contains("127.0.0.1") && !body.contains("postgresql:"))
                    #expect(body.contains("database could not be read"))
                }
            }
        }
    }
}
