import Foundation
import Testing

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsDashboard

/// The dashboard's query strings parse to the options `funnel report` would take, refuse what the
/// CLI refuses, and round-trip into links; sign-in helpers refuse what they must.
@Suite struct DashboardQueryTests {
    @Test func aQueryBecomesTheReportsOptions() throws {
        let query = DashboardQuery.parse(
            "since=2026-01-10&until=2026-01-20T12%3A00%3A00Z&per=user&breakdown=platform&window=3d&inactivity=1h")
        let options = try query.funnelOptions()
        #expect(options.since == Date(timeIntervalSince1970: 1_768_003_200))  // 2026-01-10T00:00:00Z
        #expect(options.until == Date(timeIntervalSince1970: 1_768_910_400))  // 2026-01-20T12:00:00Z
        #expect(options.unit == .user)
        #expect(options.breakdown == "platform")
        #expect(options.window == 3 * 86_400)
        #expect(options.inactivity == 3_600)
        // Defaults as the CLI's.
        let plain = try DashboardQuery.parse(nil).funnelOptions()
        #expect(plain.unit == .session && plain.window == 7 * 86_400 && plain.inactivity == 1_800)
        #expect(plain.since == nil && plain.until == nil && plain.breakdown == nil)
    }

    @Test(arguments: [
        "since=yesterday", "per=team", "window=7x", "since=2026-02-01&until=2026-01-01", "until=1969-12-31",
    ])
    func badValuesAreRefusedNamingTheParameter(_ text: String) {
        #expect(throws: DashboardError.self) { try DashboardQuery.parse(text).funnelOptions() }
        do {
            _ = try DashboardQuery.parse(text).funnelOptions()
        } catch let error as DashboardError {
            #expect(error.code == .badRequest)
            let name = String(text.prefix { $0 != "=" })
            #expect(error.message.contains(name))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func anAdHocQueryBecomesTheOptionsOfReportSteps() throws {
        let query = DashboardQuery.parse(
            "steps=welcome,+consent%20,step_completed%3Aaccount&order=any&per=user&window=3d&inactivity=1h&by=platform")
        let parsed = try #require(try query.adHocFunnel())
        #expect(parsed.funnel.steps == ["welcome", "consent", "step_completed:account"])
        #expect(parsed.funnel.order == .any)
        #expect(parsed.funnel.unit == .user && parsed.options.unit == .user)
        #expect(parsed.funnel.window == 3 * 86_400 && parsed.options.window == 3 * 86_400)
        #expect(parsed.options.inactivity == 3_600)
        // `funnel report --steps` has no breakdown.
        #expect(parsed.options.breakdown == nil)
        // Defaults as the CLI's; no steps, no funnel (the page shows its form).
        let plain = try #require(try DashboardQuery.parse("steps=a").adHocFunnel())
        #expect(plain.funnel.order == .ordered && plain.funnel.unit == .session && plain.funnel.window == 7 * 86_400)
        #expect(try DashboardQuery.parse("per=user&window=3d").adHocFunnel() == nil)
    }

    @Test(arguments: [
        ("steps=a&order=sideways", "order"), ("order=sideways", "order"), ("steps=a&window=7x", "window"),
        ("steps=a&per=team", "per"), ("steps=%20", "steps"), ("steps=a&since=yesterday", "since"),
    ])
    func badAdHocValuesAreRefusedNamingTheParameter(_ text: String, _ name: String) {
        do {
            _ = try DashboardQuery.parse(text).adHocFunnel()
            Issue.record("\(text) was accepted")
        } catch let error as DashboardError {
            #expect(error.code == .badRequest)
            #expect(error.message.hasPrefix(name), "\(error.message)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    /// Each metric is a pass over every session: repeats count once, and more than 20 distinct
    /// are refused (a URL has room for thousands).
    @Test func experimentMetricsAreDistinctAndFew() throws {
        let repeated = try DashboardQuery.parse("metric=completion&metric=completion&metric=step:consent")
            .experimentOptions(key: "consent-copy")
        #expect(repeated.metrics.count == 2)
        let many = (0...DashboardQuery.maximumMetrics).map { "metric=step:s\($0)" }.joined(separator: "&")
        let error = #expect(throws: DashboardError.self) {
            try DashboardQuery.parse(many).experimentOptions(key: "consent-copy")
        }
        #expect(error?.message.contains("at most 20 metrics") == true)
        let enough = (1...DashboardQuery.maximumMetrics).map { "metric=step:s\($0)" }.joined(separator: "&")
        #expect(try DashboardQuery.parse(enough).experimentOptions(key: "consent-copy").metrics.count == 20)
    }

    /// A paths page lists at most 1,000 paths: more is a page of megabytes, not a list to read.
    @Test func pathsTopIsBounded() throws {
        #expect(try DashboardQuery.parse("top=1000").pathOptions().top == 1_000)
        for text in ["top=0", "top=1001", "top=many"] {
            #expect(throws: DashboardError.self, "\(text)") { try DashboardQuery.parse(text).pathOptions() }
        }
    }

    @Test func linksCarryTheQueryAndDropTheFormat() {
        let query = DashboardQuery.parse("breakdown=variant%3Aconsent+copy&format=json&per=user")
        #expect(query.value("breakdown") == "variant:consent copy")
        #expect(query.encoded == "breakdown=variant:consent%20copy&per=user")
        #expect(DashboardQuery.parse(query.encoded).value("breakdown") == "variant:consent copy")
    }

    @Test func basicCredentialsSplitAtTheFirstColon() {
        let header = "Basic " + Data("ana:se:cret".utf8).base64EncodedString()
        let parsed = Dashboard.basicCredentials(header)
        #expect(parsed?.0 == "ana" && parsed?.1 == "se:cret")
        #expect(Dashboard.basicCredentials("Bearer om_abc") == nil)
        #expect(Dashboard.basicCredentials("Basic !!!") == nil)
    }

    @Test func afterSignInOnlyLocalPaths() {
        #expect(DashboardRouter.safeNext("/flows/a?per=user") == "/flows/a?per=user")
        for bad in ["//evil.example/", "https://evil.example/", "/\\evil", "flows", nil] {
            #expect(DashboardRouter.safeNext(bad) == "/")
        }
    }
}
