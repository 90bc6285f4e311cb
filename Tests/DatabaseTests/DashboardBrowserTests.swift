import Foundation
import Testing

/// `funnel dashboard` in a real browser: Debian's headless Chromium driven by selenium
/// (scripts/browser/dashboard_walk.py) signs in through the form, opens the home page, follows a
/// flow's link, changes the filters and submits them; the numbers it read off the page must be the
/// CLI's `funnel report --format json` for the same options. Screenshots go to
/// .build/browser-screenshots (their paths are printed). Fails, not skips, without Chromium or
/// chromedriver (.ci/run installs both).
@Suite(.serialized) struct DashboardBrowserTests {
    static let chromium = "/usr/bin/chromium"
    static let driver = "/usr/bin/chromedriver"

    @Test func aViewerSignsInFollowsAFlowChangesAFilterAndSeesTheCLIsNumbers() async throws {
        for program in [Self.chromium, Self.driver] where !FileManager.default.isExecutableFile(atPath: program) {
            Issue.record(
                "\(program) is missing: apt-get install -y chromium chromium-driver (the browser test needs it)")
            return
        }
        let seeded = try await DashboardFixture.seeded.value
        let python = try await Self.python()
        let created = try await FunnelProcess.run(["viewers", "create", "bruno", "--database-url", seeded.url])
        #expect(created.status == 0, "\(created.errors)")
        let secret = try #require(created.output.split(separator: "\n").last.map(String.init))

        let (server, url) = try await FunnelProcess.serve(["--database-url", seeded.url], command: "dashboard")
        defer { server.stopBlocking(signal: SIGKILL) }
        let shots = TestDatabase.packageRoot.appendingPathComponent(".build/browser-screenshots")
        try? FileManager.default.removeItem(at: shots)
        let filters = ["per": "user", "since": "2026-01-12", "until": "2026-02-01"]
        let filtersJSON = String(decoding: try JSONSerialization.data(withJSONObject: filters), as: UTF8.self)
        let walk = try await FunnelProcess.run(
            [
                Self.script("dashboard_walk.py"), url.absoluteString, "bruno", secret, "health-study", shots.path,
                filtersJSON,
            ],
            executable: python)
        let stopped = await server.stop(signal: SIGTERM)
        #expect(walk.status == 0, "\(walk.errors)")
        let seen = try #require(
            try JSONSerialization.jsonObject(with: Data(walk.output.utf8)) as? [String: Any], "\(walk.output)")
        let screenshots = seen["screenshots"] as? [String] ?? []
        print("browser screenshots:\n" + screenshots.joined(separator: "\n"))
        #expect(screenshots.count == 12)
        // Every report reached by its link from the flow page (or home, for discovery).
        let reports = seen["reports"] as? [String: [String: String]] ?? [:]
        #expect(reports["trends by week"]?["path"] == "/flows/health-study/trends")
        #expect(reports["this week against the last"]?["path"] == "/flows/health-study/compare")
        #expect(reports["who dropped"]?["path"] == "/flows/health-study/users")
        #expect(reports["correlation"]?["path"] == "/flows/health-study/correlation")
        #expect(reports["discovery"]?["title"]?.isEmpty == false)
        // The trends page's own form switched it to days, keeping the flow page's range.
        let byDay = seen["trends_by_day"] as? [String: Any]
        let dayQuery = byDay?["query"] as? [String: String] ?? [:]
        #expect(dayQuery["interval"] == "day" && dayQuery["since"] == "2026-01-12" && dayQuery["until"] == "2026-02-01")
        #expect((byDay?["periods"] as? Int ?? 0) >= 20, "\(byDay ?? [:])")  // 2026-01-12 to 2026-01-31
        for file in screenshots {
            let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
            #expect(size > 10_000, "\(file) is \(size) bytes: a blank page?")
        }

        // The home page lists the flow and said when it was made.
        #expect(seen["home_flows"] as? [String] == ["health-study", "spotlight-share"])
        #expect((seen["home_subtitle"] as? String)?.contains("newest event 2026-0") == true)
        // The form put the filters in the URL, so the link reproduces the view.
        let query = try #require(seen["filtered_query"] as? [String: String])
        for (name, value) in filters { #expect(query[name] == value, "\(name) in \(query)") }

        // The numbers on the page are the CLI's for the same options.
        let cli = try await FunnelProcess.run([
            "report", "--flow", "health-study", "--per", "user", "--since", "2026-01-12", "--until", "2026-02-01",
            "--format", "json", "--database-url", seeded.url, "--quiet",
        ])
        #expect(cli.status == 0, "\(cli.errors)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(cli.output.utf8)) as? [String: Any])
        #expect(report["unit"] as? String == "user")
        let group = try #require((report["groups"] as? [[String: Any]])?.first)
        let totals = try #require(group["totals"] as? [String: Any])
        let shownTotals = try #require(seen["totals"] as? [String: String])
        for (label, key) in [
            ("started", "started"), ("completed", "completed"), ("dropped", "dropped"), ("in progress", "in_progress"),
        ] {
            let expected = try #require(totals[key] as? Int, "\(key) in \(totals)")
            #expect(shownTotals[label] == String(expected), "\(label): page \(shownTotals), CLI \(totals)")
        }
        #expect((totals["started"] as? Int ?? 0) > 0)
        let steps = try #require(group["steps"] as? [[String: Any]])
        let shownSteps = try #require(seen["steps"] as? [String: [String: String]])
        #expect(seen["step_order"] as? [String] == steps.compactMap { $0["step"] as? String })
        for step in steps {
            let id = try #require(step["step"] as? String)
            let row = try #require(shownSteps[id], "step \(id) not on the page")
            for (column, key) in [
                ("eligible", "eligible"), ("viewed", "viewed"), ("completed", "completed"), ("skipped", "skipped"),
                ("dropped", "dropped_here"), ("in progress", "in_progress_here"),
            ] {
                let expected = try #require(step[key] as? Int, "\(key) in \(step)")
                #expect(row[column] == String(expected), "\(id) \(column): page \(row), CLI \(step)")
            }
        }

        // Readable on a phone: no page is wider than a 390 px window (wide tables scroll in their box).
        for page in seen["pages"] as? [[String: Any]] ?? [] {
            #expect(page["overflow"] as? Int == 0, "\(page)")
        }
        // The server logged the sign-in and each page with its time, and stopped cleanly.
        #expect(stopped.status == 0, "\(stopped.errors)")
        #expect(stopped.errors.contains("viewer signed in"))
        #expect(stopped.errors.contains("GET /flows/health-study 200"))
        #expect(!stopped.errors.contains(secret))
    }

    /// The python of a venv with selenium, made once per test run (scripts/browser/selenium.sh).
    static func python() async throws -> String {
        let work = ProcessInfo.processInfo.environment["ONBOARDMETRICS_TEST_WORK_DIR"] ?? NSTemporaryDirectory()
        let made = try await FunnelProcess.run([Self.script("selenium.sh"), work], executable: "/bin/bash")
        #expect(made.status == 0, "\(made.errors)")
        return made.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func script(_ name: String) -> String {
        TestDatabase.packageRoot.appendingPathComponent("scripts/browser/\(name)").path
    }
}
