import Foundation
import OnboardMetricsReader
import Testing

@testable import OnboardMetricsSDK

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `funnel dashboard` and `funnel viewers` as a user runs them: the built binary, real HTTP on
/// loopback, the test database. A flow page's JSON (and the ad-hoc funnel page's) is byte for
/// byte what `funnel report --format json` prints for the same options.
@Suite(.serialized) struct DashboardCommandTests {
    @Test(arguments: [
        [String](),
        ["per=user", "breakdown=platform"],
        ["since=2026-01-12", "window=3d", "inactivity=1h"],
    ])
    func aFlowPagesJSONIsTheCLIsReport(_ parameters: [String]) async throws {
        let seeded = try await DashboardFixture.seeded.value
        // An end, so "now" (the page's clock, the CLI's wall clock) does not enter the report.
        let parameters = parameters + ["until=2026-02-01"]
        var arguments = [
            "report", "--flow", "health-study", "--format", "json", "--database-url", seeded.url, "--quiet",
        ]
        for parameter in parameters {
            let parts = parameter.split(separator: "=", maxSplits: 1).map(String.init)
            arguments += ["--" + (parts[0] == "breakdown" ? "by" : parts[0]), parts[1]]
        }
        let cli = try await FunnelProcess.run(arguments)
        #expect(cli.status == 0, "\(cli.errors)")
        let app = DashboardFixture.application(seeded.configuration)
        let uri = "/flows/health-study?" + parameters.joined(separator: "&") + "&format=json"
        let page = try await app.test(.router) { client in
            try await client.execute(
                uri: uri, method: .get, headers: [.authorization: DashboardFixture.basic(seeded.viewer, seeded.secret)]
            ) { String(buffer: $0.body) }
        }
        #expect(!cli.output.isEmpty)
        #expect(page == cli.output)
    }

    /// The pages that explain drop-off: each one's JSON is its command's for the same options.
    @Test(arguments: [
        ("retention", ["by=outcome", "days=1,7"], ["retention", "--by", "outcome", "--days", "1,7"]),
        ("correlation", ["step=consent", "per=user"], ["correlate", "--step", "consent", "--per", "user"]),
        ("paths", ["step=consent", "depth=2"], ["paths", "--after-drop", "--step", "consent", "--depth", "2"]),
        ("paths", ["between=welcome,consent"], ["paths", "--between", "welcome,consent"]),
    ])
    func aWhyPagesJSONIsTheCLIsReport(_ page: String, _ parameters: [String], _ command: [String]) async throws {
        let seeded = try await DashboardFixture.seeded.value
        let cli = try await FunnelProcess.run(
            command + [
                "--flow", "health-study", "--until", "2026-02-01", "--format", "json", "--database-url", seeded.url,
                "--quiet",
            ])
        #expect(cli.status == 0, "\(cli.errors)")
        let app = DashboardFixture.application(seeded.configuration)
        let uri =
            "/flows/health-study/\(page)?" + (parameters + ["until=2026-02-01", "format=json"]).joined(separator: "&")
        let (status, body) = try await app.test(.router) { client in
            try await client.execute(
                uri: uri, method: .get, headers: [.authorization: DashboardFixture.basic(seeded.viewer, seeded.secret)]
            ) { ($0.status.code, String(buffer: $0.body)) }
        }
        #expect(status == 200, "\(body)")
        #expect(!cli.output.isEmpty)
        #expect(body == cli.output)
        let html = try await app.test(.router) { client in
            try await client.execute(
                uri: "/flows/health-study/\(page)?" + parameters.joined(separator: "&"), method: .get,
                headers: [.authorization: DashboardFixture.basic(seeded.viewer, seeded.secret)]
            ) { String(buffer: $0.body) }
        }
        #expect(html.contains("<svg") || html.contains("<table"))
        // Without a viewer: a browser is sent to the sign-in form, a script gets 401.
        let (browser, script) = try await app.test(.router) { client in
            (
                try await client.execute(uri: "/flows/health-study/\(page)", method: .get) { $0.status.code },
                try await client.execute(uri: "/flows/health-study/\(page)?format=json", method: .get) {
                    $0.status.code
                }
            )
        }
        #expect(browser == 303)
        #expect(script == 401)
    }

    /// The ad-hoc funnel page: its JSON is `funnel report --steps` for the same options.
    @Test(arguments: [
        ["steps=welcome,modules,consent,account"],
        ["steps=welcome,consent,account", "order=strict", "per=user", "window=3d"],
        ["steps=consent,welcome,flow_completed", "order=any", "since=2026-01-12", "inactivity=1h"],
        ["steps=welcome,step_completed:consent,flow_completed", "per=user"],
    ])
    func anAdHocFunnelPagesJSONIsTheCLIsReport(_ parameters: [String]) async throws {
        let seeded = try await DashboardFixture.seeded.value
        let parameters = parameters + ["until=2026-02-01"]
        var arguments = ["report", "--format", "json", "--database-url", seeded.url, "--quiet"]
        for parameter in parameters {
            let parts = parameter.split(separator: "=", maxSplits: 1).map(String.init)
            arguments += ["--" + parts[0], parts[1]]
        }
        let cli = try await FunnelProcess.run(arguments)
        #expect(cli.status == 0, "\(cli.errors)")
        let app = DashboardFixture.application(seeded.configuration)
        let (status, page) = try await app.test(.router) { client in
            try await client.execute(
                uri: "/funnel?" + parameters.joined(separator: "&") + "&format=json", method: .get,
                headers: [.authorization: DashboardFixture.basic(seeded.viewer, seeded.secret)]
            ) { ($0.status.code, String(buffer: $0.body)) }
        }
        #expect(status == 200, "\(page)")
        // A funnel that some units entered, so equal pages are not two empty reports.
        let report = try #require(try JSONSerialization.jsonObject(with: Data(cli.output.utf8)) as? [String: Any])
        #expect(((report["rows"] as? [[String: Any]])?.first?["count"] as? Int ?? 0) > 0)
        #expect(page == cli.output)
    }

    /// With `--cache-events`' cache, the ad-hoc page reads the sessions kept in memory (no range:
    /// what the cache serves), filled on the first request and reused on the second, and still
    /// answers what `funnel report --steps` reads from PostgreSQL.
    @Test func anAdHocFunnelPageReadThroughTheCacheIsTheCLIsReport() async throws {
        let seeded = try await DashboardFixture.seeded.value
        let cli = try await FunnelProcess.run([
            "report", "--steps", "welcome,consent,account", "--per", "user", "--format", "json", "--database-url",
            seeded.url, "--quiet",
        ])
        #expect(cli.status == 0, "\(cli.errors)")
        let cache = SessionCache(configuration: seeded.configuration, maximumEvents: 10_000_000)
        let app = DashboardFixture.application(seeded.configuration, cache: cache)
        let pages = try await app.test(.router) { client in
            var pages: [String] = []
            for _ in 0..<2 {
                pages.append(
                    try await client.execute(
                        uri: "/funnel?steps=welcome,consent,account&per=user", method: .get,
                        headers: [
                            .authorization: DashboardFixture.basic(seeded.viewer, seeded.secret),
                            .accept: "application/json",
                        ]
                    ) { String(buffer: $0.body) })
            }
            return pages
        }
        #expect(cli.output.contains("\"rows\""))
        #expect(pages == [cli.output, cli.output])
    }

    @Test func anExperimentPagesJSONIsTheCLIsReport() async throws {
        let seeded = try await DashboardFixture.seeded.value
        let cli = try await FunnelProcess.run([
            "experiment", "consent-copy", "--metric", "step:consent", "--metric", "completion", "--per", "user",
            "--until", "2026-02-01", "--format", "json", "--database-url", seeded.url, "--quiet",
        ])
        #expect(cli.status == 0, "\(cli.errors)")
        let app = DashboardFixture.application(seeded.configuration)
        let page = try await app.test(.router) { client in
            try await client.execute(
                uri: "/experiments/consent-copy?metric=step:consent&metric=completion&per=user&until=2026-02-01",
                method: .get,
                headers: [
                    .authorization: DashboardFixture.basic(seeded.viewer, seeded.secret), .accept: "application/json",
                ]
            ) { String(buffer: $0.body) }
        }
        #expect(!cli.output.isEmpty)
        #expect(page == cli.output)
    }

    @Test func viewersAreManagedAndTheDashboardServesThemUntilSIGTERM() async throws {
        let seeded = try await DashboardFixture.seeded.value
        let created = try await FunnelProcess.run(["viewers", "create", "dora", "--database-url", seeded.url])
        #expect(created.status == 0, "\(created.errors)")
        // The secret alone on the last line of stdout, and nowhere on stderr.
        let secret = try #require(created.output.split(separator: "\n").last.map(String.init))
        #expect(secret.hasPrefix("omv_") && !secret.contains(" "))
        #expect(!created.errors.contains(secret))
        let again = try await FunnelProcess.run(["viewers", "create", "dora", "--database-url", seeded.url])
        #expect(again.status == 65)
        let list = try await FunnelProcess.run(["viewers", "list", "--format", "json", "--database-url", seeded.url])
        let viewers = try #require(
            try JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [String: [[String: Any]]])
        #expect(viewers["viewers"]?.contains { $0["name"] as? String == "dora" } == true)
        #expect(!list.output.contains(secret) && !list.output.contains("$2"))

        let (server, url) = try await FunnelProcess.serve(["--database-url", seeded.url], command: "dashboard")
        defer { server.stopBlocking(signal: SIGKILL) }
        #expect(url.absoluteString.hasPrefix("http://127.0.0.1:"))
        var request = URLRequest(url: url.appendingPathComponent("flows/health-study"), timeoutInterval: 60)
        request.setValue(
            "Basic " + Data("dora:\(secret)".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (body, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let report = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        #expect(report?["flow_id"] as? String == "health-study")
        // A wrong secret through the form: a 401 without a Basic challenge (one that URLSession on
        // Linux, with no delegate, never finishes answering).
        var login = URLRequest(url: url.appendingPathComponent("login"), timeoutInterval: 60)
        login.httpMethod = "POST"
        login.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        login.httpBody = Data("name=dora&secret=dora-guess-7731".utf8)
        let (_, refused) = try await URLSession.shared.data(for: login)
        #expect((refused as? HTTPURLResponse)?.statusCode == 401)

        let stopped = await server.stop(signal: SIGTERM)
        #expect(stopped.status == 0, "\(stopped.errors)")
        // Each request is logged with its time; the failed sign-in without the secret.
        #expect(stopped.errors.contains("GET /flows/health-study 200"))
        #expect(stopped.errors.contains("failed sign-in"))
        #expect(!stopped.errors.contains(secret) && !stopped.errors.contains("dora-guess-7731"))

        let revoked = try await FunnelProcess.run(["viewers", "revoke", "dora", "--database-url", seeded.url])
        #expect(revoked.status == 0)
        #expect(revoked.output.contains("revoked viewer"))
    }
}
