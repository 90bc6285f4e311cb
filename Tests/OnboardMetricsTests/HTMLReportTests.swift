import Foundation
import Testing

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsGeneration
@testable import OnboardMetricsReader
@testable import OnboardMetricsRendering
@testable import OnboardMetricsSDK

/// The HTML reports for a fixed data set: charts present, a row per step, the numbers equal the
/// JSON report's, text escaped, nothing fetched from the network.
@Suite struct HTMLReportTests {

    static func sessions(_ scenario: Scenario, count: Int) throws -> [RecordedSession] {
        let generator = try SyntheticGenerator(scenario: scenario, seed: 11)
        return RecordedSession.group((0..<count).flatMap { generator.session($0).events })
    }

    /// `data-value` of each cell of the row with `data-key` in the table named `table`.
    static func values(_ html: String, table: String, key: String) -> [String] {
        guard let start = html.range(of: "data-table=\"\(table)\""),
            let row = html.range(of: "<tr data-key=\"\(HTML.escape(key))\">", range: start.upperBound..<html.endIndex),
            let end = html.range(of: "</tr>", range: row.upperBound..<html.endIndex)
        else { return [] }
        let cells = html[row.upperBound..<end.lowerBound].components(separatedBy: "data-value=\"").dropFirst()
        return cells.compactMap { $0.split(separator: "\"").first.map(String.init) }
    }

    /// The same number: corelibs' JSONSerialization may differ in the last binary digit.
    static func same(_ cell: String, _ value: Double?) -> Bool {
        guard let parsed = Double(cell), let value else { return false }
        return abs(parsed - value) <= 1e-12 * max(1, abs(value))
    }

    @Test func funnelHTMLHasChartsAndTheJSONNumbers() throws {
        let report = try FunnelAggregator(
            flow: ExampleFlows.healthStudy, options: FunnelOptions(), now: Date(timeIntervalSince1970: 1_800_000_000)
        ).report(of: try Self.sessions(.healthStudy, count: 400))
        let html = report.html()
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("data-chart=\"funnel-health-study-0-steps\""))
        #expect(html.contains("data-chart=\"funnel-health-study-0-time\""))
        #expect(html.components(separatedBy: "<title id=").count - 1 == 2)
        #expect(html.components(separatedBy: "<desc id=").count - 1 == 2)
        #expect(html.contains("@media print"))
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(try report.rendered(.json).utf8)) as? [String: Any])
        let groups = try #require(json["groups"] as? [[String: Any]])
        let steps = try #require(groups.first?["steps"] as? [[String: Any]])
        #expect(steps.count == ExampleFlows.healthStudy.steps.count)
        for step in steps {
            let id = try #require(step["step"] as? String)
            let cells = Self.values(html, table: "steps", key: id)
            #expect(cells.count == 12, "row of \(id)")
            let counts = ["eligible", "viewed", "completed", "skipped", "dropped_here", "in_progress_here"]
            for (index, name) in counts.enumerated() {
                #expect(Int(cells[index]) == step[name] as? Int, "\(id) \(name)")
            }
            if let conversion = step["conversion_from_start"] as? Double {
                #expect(Self.same(cells[7], conversion))
            }
            let time = try #require(step["time_on_step"] as? [String: Any])
            if let median = time["median"] as? Double { #expect(Self.same(cells[8], median)) }
        }
    }

    @Test func discoveryConformanceAndAdHocHTML() throws {
        let sessions = try Self.sessions(.spotlight, count: 600)
        let discovery = try DiscoveryAggregator().report(of: sessions)
        let html = discovery.html()
        #expect(html.contains("data-chart=\"discovery-rates\""))
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(try discovery.rendered(.json).utf8)) as? [String: Any])
        for row in try #require(json["highlights"] as? [[String: Any]]) {
            let id = try #require(row["highlight"] as? String)
            let cells = Self.values(html, table: "highlights", key: id)
            #expect(Int(cells[0]) == row["shown"] as? Int)
            #expect(Int(cells[3]) == row["discovered"] as? Int)
            #expect(Self.same(cells[4], row["rate"] as? Double))
        }
        let conformance = try ConformanceAggregator(flow: ExampleFlows.spotlight).report(of: sessions)
        #expect(conformance.html().contains("data-chart=\"conformance-spotlight-share-fitness\""))
        let adHoc = try AdHocFunnelAggregator(funnel: AdHocFunnel(steps: ["session_started", "flow_completed"])).report(
            of: sessions)
        let adHocHTML = adHoc.html()
        #expect(adHocHTML.contains("data-chart=\"adhoc-funnel-steps\""))
        #expect(Self.values(adHocHTML, table: "steps", key: "flow_completed").first == String(adHoc.rows[1].count))
        // A page of every section: self-contained, no fetches.
        let page = HTMLDocument(title: "All", sections: [discovery, conformance, adHoc]).render()
        for forbidden in ["src=\"http", "href=\"http", "url(http", "@import", "<script", "<link"] {
            #expect(!page.contains(forbidden), "\(forbidden)")
        }
        #expect(!page.replacingOccurrences(of: "xmlns=\"http://www.w3.org/2000/svg\"", with: "").contains("http"))
    }

    @Test func textIsEscaped() throws {
        let row = FunnelReport.StepRow(
            step: "<script>alert('x')</script>&", condition: "a < b", eligible: 1, viewed: 1, completed: 1, skipped: 0,
            droppedHere: 0, inProgressHere: 0, conversionFromPrevious: 1, conversionFromStart: 1,
            timeOnStep: DurationSummary([1]), timeFromStart: DurationSummary([0]))
        let report = FunnelReport(
            flowID: "f\"<x>", flowVersion: 1, unit: .session, windowSeconds: 60, inactivitySeconds: 60, since: nil,
            until: nil, reportEnd: Date(timeIntervalSince1970: 0), breakdownBy: "<b>",
            groups: [
                .init(
                    breakdown: "<i>",
                    totals: .init(
                        started: 1, completed: 1, dropped: 0, inProgress: 0, completionRate: 1,
                        droppedBeforeFirstStep: 0),
                    steps: [row])
            ], otherFlowSessions: 0)
        let html = report.html()
        #expect(!html.contains("<script>"))
        #expect(!html.contains("<i>") && !html.contains("<b>") && !html.contains("<x>"))
        #expect(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;"))
        #expect(HTML.escape("a&b<\"'>") == "a&amp;b&lt;&quot;&#39;&gt;")
    }

    /// Axis ends and steps worked out by hand: the smallest 1/2/5 × 10ᵏ step giving at most five ticks.
    @Test(arguments: [
        (93.0, 100.0, 20.0), (0.37, 0.4, 0.1), (5.0, 5.0, 1.0), (1_234.0, 1_500.0, 500.0), (7.2, 8.0, 2.0),
    ])
    func axesEndOnRoundTicks(maximum: Double, end: Double, step: Double) {
        let axis = SVGChart.niceAxis(maximum: maximum)
        #expect(abs(axis.end - end) < 1e-9 && abs(axis.step - step) < 1e-9, "\(axis)")
    }
}
