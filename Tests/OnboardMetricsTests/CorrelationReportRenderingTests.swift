import Foundation
import Testing

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsRendering
@testable import OnboardMetricsStatistics

/// The correlation report's formats: what each must carry, on a report built by hand.
@Suite struct CorrelationReportRenderingTests {
    static let report = CorrelationReport(
        flowID: "study", flowVersion: 2, step: nil, unit: .session, windowSeconds: 604_800, inactivitySeconds: 1_800,
        since: nil, until: nil, reportEnd: Date(timeIntervalSince1970: 1_790_000_000), breakdownBy: nil,
        correction: .bh, alpha: 0.05, top: 10, minimumUnits: 30, minimumShare: 0.1,
        groups: [
            CorrelationReport.Group(
                breakdown: nil, successes: 40, failures: 12, inProgress: 3, notEntered: 0, successShare: 40.0 / 52,
                candidatesTested: 2, significant: 1, warnings: ["too few units: 40 successes and 12 failures"],
                positive: [
                    CorrelationReport.Row(
                        kind: .event, name: "feature_used:share", successes: 30, failures: 2, oddsRatio: 11.4,
                        pValue: 0.00001, adjustedPValue: 0.00002, significant: true)
                ],
                negative: [
                    CorrelationReport.Row(
                        kind: .property, name: "platform=web", successes: 4, failures: 3, oddsRatio: 0.4,
                        pValue: 0.2, adjustedPValue: 0.2, significant: false)
                ])
        ], otherFlowSessions: 0)

    @Test func textSaysAssociationNotCauseAndWarns() throws {
        let text = try Self.report.rendered(.text)
        #expect(text.contains("association, not cause"))
        #expect(text.contains("40 successes, 12 failures"))
        #expect(text.contains("warning: too few units"))
        #expect(text.contains("feature_used:share") && text.contains("platform=web"))
    }

    @Test func jsonHasStableSnakeCaseKeys() throws {
        let json = try Self.report.rendered(.json)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["correction"] as? String == "bh")
        let group = try #require((object["groups"] as? [[String: Any]])?.first)
        #expect(group["candidates_tested"] as? Int == 2)
        let row = try #require((group["positive"] as? [[String: Any]])?.first)
        #expect(
            Set(row.keys) == [
                "kind", "name", "successes", "failures", "odds_ratio", "p_value", "adjusted_p_value", "significant",
            ])
    }

    @Test func csvHasOneRowPerListedCandidate() throws {
        let lines = try Self.report.rendered(.csv).split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("direction,kind,candidate"))
        #expect(lines[2].hasPrefix("negative,property,platform=web"))
    }

    @Test func htmlHasTheLogOddsChart() {
        let html = Self.report.html()
        #expect(html.contains("data-chart=\"correlation-0\""))
        // One bar per listed candidate, each with its tooltip.
        #expect(html.contains("feature_used:share: odds ratio 11.40"))
        #expect(html.contains("platform=web: odds ratio 0.40"))
    }
}
