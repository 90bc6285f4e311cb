import Testing

@testable import OnboardMetricsDashboard

/// The home page's sparkline: points placed by hand-computed coordinates (120 × 28 box, 2 px
/// margins top and bottom), its numbers in the label, nothing but SVG.
@Suite struct DashboardSparklineTests {
    @Test func pointsSpanTheBoxFromOldestToToday() {
        let svg = DashboardSparkline(values: [0, 5, 10], label: "signup").render()
        // x: 0, 60, 120; y: 2 + 24 × (1 − value / 10).
        #expect(svg.contains("points=\"0.0,26.0 60.0,14.0 120.0,2.0\""))
        #expect(svg.contains("<circle cx=\"120.0\" cy=\"2.0\""))
        #expect(svg.contains("aria-label=\"signup: 15 started over 3 days, 10 today\""))
        #expect(svg.hasPrefix("<svg class=\"sparkline\"") && svg.hasSuffix("</svg>"))
        #expect(!svg.contains("href") && !svg.contains("<script"))
    }

    @Test func noSessionsIsAFlatLineAtTheBottom() {
        let svg = DashboardSparkline(values: Array(repeating: 0, count: 30), label: "a<b").render()
        #expect(svg.contains("0.0,26.0 4.1,26.0"))
        #expect(!svg.contains("nan") && !svg.contains("inf"))
        #expect(svg.contains("a&lt;b: 0 started over 30 days, 0 today"))
    }
}
