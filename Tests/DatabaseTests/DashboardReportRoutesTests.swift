import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import OnboardMetricsDashboard

/// The report pages beyond the funnel — `/flows/ID/trends`, `/compare`, `/users`, `/discovery`,
/// the ad-hoc `/funnel` — and the home page's sparkline and highlights: each JSON twin byte for
/// byte the CLI's `--format json` for the same options, their refusals (401, 404, a 400 naming
/// the parameter), and the `Secure` cookie of `--cookie-secure`.
@Suite(.serialized) struct DashboardReportRoutesTests {
    @Test(arguments: [
        (
            "/flows/health-study/trends", ["interval=day", "by=platform"],
            ["trends", "--interval", "day", "--by", "platform"]
        ),
        (
            "/flows/health-study/trends", ["since=2026-01-12", "window=3d"],
            ["trends", "--since", "2026-01-12", "--window", "3d"]
        ),
        (
            "/flows/health-study/compare", ["a_since=2026-01-05", "a_until=2026-01-15", "b_since=2026-01-15"],
            ["compare", "--a-since", "2026-01-05", "--a-until", "2026-01-15", "--b-since", "2026-01-15"]
        ),
        (
            "/flows/health-study/compare", ["property=platform", "a=ios", "b=android", "correction=bh"],
            ["compare", "--property", "platform", "--a", "ios", "--b", "android", "--correction", "bh"]
        ),
        (
            "/flows/health-study/users", ["step=consent", "status=dropped", "per=user"],
            ["users", "--step", "consent", "--status", "dropped", "--per", "user"]
        ),
        ("/flows/health-study/users", ["status=completed"], ["users", "--status", "completed"]),
        ("/discovery", [], ["discovery"]),
        ("/discovery", ["per=user", "window=3d"], ["discovery", "--per", "user", "--window", "3d"]),
    ])
    func aReportPagesJSONIsTheCLIsReport(_ path: String, _ parameters: [String], _ command: [String]) async throws {
        let seeded = try await DashboardFixture.seeded.value
        // An end, so "now" (the page's clock, the CLI's wall clock) does not enter the report.
        let flow = path.hasPrefix("/flows/") ? ["--flow", "health-study"] : []
        let cli = try await FunnelProcess.run(
            command + flow + [
                "--until", "2026-02-01", "--format", "json", "--database-url", seeded.url, "--quiet",
            ])
        #expect(cli.status == 0, "\(cli.errors)")
        let app = DashboardFixture.application(seeded.configuration)
        let viewer: HTTPFields = [.authorization: DashboardFixture.basic(seeded.viewer, seeded.secret)]
        let query = (parameters + ["until=2026-02-01"]).joined(separator: "&")
        let (status, json, html) = try await app.test(.router) { client in
            let (status, json) = try await client.execute(
                uri: path + "?" + query + "&format=json", method: .get, headers: viewer
            ) { ($0.status.code, String(buffer: $0.body)) }
            let html = try await client.execute(uri: path + "?" + query, method: .get, headers: viewer) {
                String(buffer: $0.body)
            }
            return (status, json, html)
        }
        #expect(status == 200, "\(json)")
        #expect(cli.output.count > 20)
        #expect(json == cli.output)
        #expect(html.contains("<table") && html.contains("As of 2026-02-02T00:00:00Z; newest event 2026-0"))
        #expect(html.contains("This view as JSON"))
        // The filter form holds the view's options, so submitting it keeps them.
        #expect(html.contains("<form method=\"get\" action=\"\(path)\">"))
        #expect(html.contains("value=\"2026-02-01\""))
        if parameters.contains("interval=day") { #expect(html.contains("<option selected>day</option>")) }
        if parameters.contains("status=completed") { #expect(html.contains("<option selected>completed</option>")) }
    }

    @Test func refusalsNameWhatIsWrong() async throws {
        let seeded = try await DashboardFixture.seeded.value
        let app = DashboardFixture.application(seeded.configuration)
        let viewer: HTTPFields = [.authorization: DashboardFixture.basic(seeded.viewer, seeded.secret)]
        let cases: [(String, Int, String)] = [
            ("/flows/health-study/trends?interval=hour", 400, "interval must be day, week or month"),
            ("/flows/health-study/trends?window=soon", 400, "window"),
            ("/flows/nope/trends", 404, "no stored flow has the id \\\"nope\\\""),
            ("/flows/health-study/compare", 400, "name two cohorts"),
            ("/flows/health-study/compare?a_since=2026-01-05&b_since=2026-01-10", 400, "overlap"),
            ("/flows/health-study/compare?property=platform&a=ios", 400, "property needs both a and b"),
            ("/flows/health-study/compare?a_since=yesterday&b_since=2026-01-10", 400, "a_since is not a date"),
            ("/flows/health-study/compare?property=platform&a=ios&b=android&alpha=2", 400, "alpha"),
            ("/flows/nope/compare?property=platform&a=ios&b=android", 404, "nope"),
            ("/flows/health-study/users?status=gone", 400, "status must be"),
            ("/flows/health-study/users?status=skipped", 400, "status skipped needs a step"),
            ("/flows/health-study/users?step=nowhere", 400, "nowhere"),
            ("/flows/health-study/users?per=team", 400, "per must be session or user"),
            ("/discovery?window=forever", 400, "window"),
            ("/discovery?since=2026-02-01&until=2026-01-01", 400, "since is not before until"),
            ("/funnel?steps=welcome,consent&order=sideways", 400, "order must be ordered, strict or any"),
            ("/funnel?order=sideways", 400, "order must be ordered, strict or any"),
            ("/funnel?steps=welcome,consent&window=soon", 400, "window"),
            ("/funnel?steps=welcome&per=team", 400, "per must be session or user"),
            ("/funnel?steps=%20", 400, "steps: step 1 has an empty name"),
            ("/funnel", 400, "steps is missing"),
        ]
        try await app.test(.router) { client in
            for (uri, code, message) in cases {
                try await client.execute(
                    uri: uri + (uri.contains("?") ? "&" : "?") + "format=json", method: .get, headers: viewer
                ) { response in
                    #expect(response.status.code == code, "\(uri)")
                    let body = String(buffer: response.body)
                    #expect(body.contains("\"error\"") && body.contains(message), "\(uri): \(body)")
                }
            }
            // No viewer: a script gets 401, a browser the sign-in form.
            for uri in ["/flows/health-study/trends", "/flows/health-study/users", "/discovery", "/funnel"] {
                try await client.execute(uri: uri + "?format=json", method: .get) {
                    #expect($0.status == .unauthorized, "\(uri)")
                }
                try await client.execute(uri: uri, method: .get) { #expect($0.status == .seeOther, "\(uri)") }
                try await client.execute(
                    uri: uri + "?format=json", method: .get, headers: [.authorization: "Bearer \(seeded.appKey)"]
                ) { #expect($0.status == .unauthorized, "\(uri)") }
            }
        }
    }

    /// The home page's days: 30 of them, adding up to the 30-day figure (the data lies wholly inside
    /// both ranges), as an inline SVG; the highlights as `funnel discovery --since` counts them.
    @Test func theHomePageHasASparklineAndTheHighlights() async throws {
        let seeded = try await DashboardFixture.seeded.value
        let app = DashboardFixture.application(seeded.configuration)
        let viewer: HTTPFields = [.authorization: DashboardFixture.basic(seeded.viewer, seeded.secret)]
        let (json, html) = try await app.test(.router) { client in
            (
                try await client.execute(uri: "/?format=json", method: .get, headers: viewer) {
                    Data(buffer: $0.body)
                },
                try await client.execute(uri: "/", method: .get, headers: viewer) { String(buffer: $0.body) }
            )
        }
        let home = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        let flow = try #require((home["flows"] as? [[String: Any]])?.first { $0["id"] as? String == "health-study" })
        let daily = try #require(flow["daily_started"] as? [Int])
        let started30 = try #require((flow["last_30_days"] as? [String: Any])?["started"] as? Int)
        #expect(daily.count == 30)
        #expect(daily.reduce(0, +) == started30)
        #expect(daily.filter { $0 > 0 }.count > 20)  // 2026-01-05 to 2026-02-01: sessions most days
        #expect(html.contains("<svg class=\"sparkline\""))
        #expect(html.contains("health-study: \(started30) started over 30 days"))

        let cli = try await FunnelProcess.run([
            "discovery", "--since", "2026-01-03T00:00:00Z", "--until", "2026-02-02", "--format", "json",
            "--database-url", seeded.url, "--quiet",
        ])
        #expect(cli.status == 0, "\(cli.errors)")
        let discovery = try #require(try JSONSerialization.jsonObject(with: Data(cli.output.utf8)) as? [String: Any])
        let expected = (discovery["highlights"] as? [[String: Any]] ?? []).map {
            "\($0["highlight"] as? String ?? "?") \($0["shown"] as? Int ?? -1) \($0["discovered"] as? Int ?? -1)"
        }
        let shown = (home["highlights"] as? [[String: Any]] ?? []).map {
            "\($0["highlight"] as? String ?? "?") \($0["shown"] as? Int ?? -2) \($0["discovered"] as? Int ?? -2)"
        }
        #expect(!expected.isEmpty)
        #expect(shown == expected)
        #expect(html.contains("href=\"/discovery?highlight="))
        // This week against the last: whole UTC days, today (2026-02-02) the last day of B.
        let weeks = "a_since=2026-01-20&a_until=2026-01-27&b_since=2026-01-27&b_until=2026-02-03"
        #expect(
            html.contains("href=\"/flows/health-study/compare?" + weeks.replacingOccurrences(of: "&", with: "&amp;")))
        let status = try await app.test(.router) { client in
            try await client.execute(
                uri: "/flows/health-study/compare?" + weeks + "&format=json", method: .get, headers: viewer
            ) { $0.status }
        }
        #expect(status == .ok)
    }

    /// `/funnel` without steps is a form saying what to enter; with them, the funnel under the
    /// form holding the view's options; the home page and `funnel dashboard --help` point to it.
    @Test func theAdHocFunnelPageAsksForStepsThenShowsTheFunnel() async throws {
        let seeded = try await DashboardFixture.seeded.value
        let app = DashboardFixture.application(seeded.configuration)
        let viewer: HTTPFields = [.authorization: DashboardFixture.basic(seeded.viewer, seeded.secret)]
        let (empty, funnel, badOrder, home) = try await app.test(.router) { client in
            (
                try await client.execute(uri: "/funnel", method: .get, headers: viewer) {
                    ($0.status.code, String(buffer: $0.body))
                },
                try await client.execute(
                    uri: "/funnel?steps=welcome,consent&order=strict&until=2026-02-01", method: .get, headers: viewer
                ) { ($0.status.code, String(buffer: $0.body)) },
                try await client.execute(uri: "/funnel?steps=welcome&order=sideways", method: .get, headers: viewer) {
                    ($0.status.code, String(buffer: $0.body))
                },
                try await client.execute(uri: "/", method: .get, headers: viewer) { String(buffer: $0.body) }
            )
        }
        #expect(empty.0 == 200)
        #expect(empty.1.contains("Name the funnel's steps"))
        #expect(empty.1.contains("<form method=\"get\" action=\"/funnel\">"))
        #expect(empty.1.contains("<input name=\"steps\" value=\"\""))
        #expect(empty.1.contains("<option>strict</option>"))
        #expect(!empty.1.contains("<table"))

        #expect(funnel.0 == 200, "\(funnel.1)")
        #expect(funnel.1.contains("Ad-hoc funnel: welcome → consent"))
        #expect(funnel.1.contains("<table") && funnel.1.contains("data-key=\"consent\""))
        #expect(funnel.1.contains("name=\"steps\" value=\"welcome,consent\""))
        #expect(funnel.1.contains("<option selected>strict</option>"))
        #expect(funnel.1.contains("This view as JSON"))

        #expect(badOrder.0 == 400)
        #expect(badOrder.1.contains("order must be ordered, strict or any"))

        #expect(home.contains("href=\"/funnel\""))
        let help = try await FunnelProcess.run(["dashboard", "--help"])
        #expect(help.output.contains("/funnel?steps=a,b,c"))
    }

    @Test func cookieSecureMarksTheSessionCookie() async throws {
        let seeded = try await DashboardFixture.seeded.value
        let app = DashboardFixture.application(seeded.configuration, cookieSecure: true)
        try await app.test(.router) { client in
            try await client.execute(
                uri: "/login", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "name=ana&secret=\(DashboardQuery.escape(seeded.secret))&next=%2F")
            ) { response in
                #expect(response.status == .seeOther)
                let cookie = try #require(response.headers[.setCookie])
                #expect(
                    cookie.contains("; Secure") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
            }
        }
        let help = try await FunnelProcess.run(["dashboard", "--help"])
        #expect(help.output.contains("--cookie-secure"))
        #expect(help.output.contains("HTTPS only"))
    }
}
