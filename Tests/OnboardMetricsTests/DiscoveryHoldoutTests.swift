import Foundation
import Testing

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsReader
@testable import OnboardMetricsRendering
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStatistics

/// Discovery against a randomized holdout: hand-built units of experiment `tips` (variant `shown`
/// sees highlight h of feature f, variant `holdout` never does), counts worked out in comments
/// and the p-value computed by hand from the pooled z-test's formula.
@Suite struct DiscoveryHoldoutTests {
    enum Move {
        case expose(String)
        case show
        case use
    }

    static let base: Int64 = 1_790_000_000_000_000
    static let second: Int64 = 1_000_000
    static let hour: Int64 = 3_600 * second
    static let day: Int64 = 24 * hour

    static func unit(_ number: Int, user: String? = nil, _ moves: [(Int64, Move)]) -> RecordedSession {
        let start = base + Int64(number) * second
        var events = [RecordedEvent(kind: .sessionStarted, flowID: "s", time: start, seq: 0)]
        for (index, (offset, move)) in moves.enumerated() {
            let time = start + offset
            switch move {
            case .expose(let variant):
                events.append(
                    RecordedEvent(
                        kind: .experimentExposure, name: "tips", time: time, seq: index + 1,
                        properties: ["variant": .string(variant)]))
            case .show:
                events.append(
                    RecordedEvent(
                        kind: .highlightShown, flowID: "s", name: "h", time: time, seq: index + 1,
                        properties: ["feature": .string("f")]))
            case .use:
                events.append(RecordedEvent(kind: .featureUsed, name: "f", time: time, seq: index + 1))
            }
        }
        return RecordedSession(
            sessionID: UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", number)) ?? UUID(),
            userID: user ?? "user-\(number)", flowID: "s", flowVersion: 1, context: [:], events: events)
    }

    static let units: [RecordedSession] = [
        // Treated: shown and used an hour later (discovered).
        unit(1, [(second, .expose("shown")), (10 * second, .show), (hour, .use)]),
        // Treated: shown, never used.
        unit(2, [(second, .expose("shown")), (10 * second, .show)]),
        // Treated: used before the exposure (already knew), then shown.
        unit(3, [(second, .use), (2 * second, .expose("shown")), (10 * second, .show)]),
        // Treated but never shown (the app did not get to it): still counted, and it used f (discovered).
        unit(4, [(second, .expose("shown")), (2 * hour, .use)]),
        // Holdout: used f an hour after the exposure (discovered anyway).
        unit(5, [(second, .expose("holdout")), (hour, .use)]),
        // Holdout: never used.
        unit(6, [(second, .expose("holdout"))]),
        unit(7, [(second, .expose("holdout"))]),
        // Holdout: used eight days later, outside the 7-day window.
        unit(8, [(second, .expose("holdout")), (8 * day, .use)]),
        // Not in the experiment: in the observational baseline only.
        unit(9, [(hour, .use)]),
    ]

    static func options() -> DiscoveryOptions {
        var options = DiscoveryOptions()
        options.holdout = "tips"
        return options
    }

    @Test func comparesTheArmsByIntentionToTreat() throws {
        var aggregator = DiscoveryAggregator(options: Self.options())
        for unit in Self.units { aggregator.add(unit) }
        let report = aggregator.report()
        let holdout = try #require(report.holdout)
        #expect(holdout.experiment == "tips" && holdout.holdoutVariant == "holdout")
        #expect(holdout.treatedVariants == ["shown"])
        let row = try #require(holdout.rows.first)
        #expect(row.highlight == "h" && row.feature == "f")
        // Treated: 4 exposed, 1 already knew, 3 eligible, 2 discovered (units 1 and 4); shown 3 of 4.
        let treated: [Int] = [row.treated.units, row.treated.alreadyKnew, row.treated.eligible, row.treated.discovered]
        #expect(treated == [4, 1, 3, 2])
        #expect(row.shownAmongTreated == 0.75)
        // Holdout: 4 exposed, none knew, 1 discovered within the window.
        let held: [Int] = [row.holdout.units, row.holdout.alreadyKnew, row.holdout.eligible, row.holdout.discovered]
        #expect(held == [4, 0, 4, 1])
        let difference = try #require(row.difference)
        #expect(abs(difference - (2.0 / 3 - 1.0 / 4)) < 1e-12)
        // Pooled z-test by hand: p = 3/7, se = sqrt(p(1-p)(1/3 + 1/4)), z = 1.102396, p = erfc(z/√2) = 0.270289.
        let pooled = 3.0 / 7
        let z = difference / (pooled * (1 - pooled) * (1.0 / 3 + 1.0 / 4)).squareRoot()
        #expect(abs(z - 1.102396) < 1e-6)
        #expect(abs((row.pValue ?? 0) - 0.2702894) < 1e-6)
        let interval = try #require(row.interval)
        #expect(interval.lower < difference && difference < interval.upper)
        // The observational report is unchanged by the holdout: units 1-3 shown, baseline = the others.
        #expect(report.highlights.first?.shown == 3)
    }

    @Test func mergedPartsAndPerUserAgree() throws {
        var whole = DiscoveryAggregator(options: Self.options())
        for unit in Self.units { whole.add(unit) }
        var first = DiscoveryAggregator(options: Self.options())
        var second = DiscoveryAggregator(options: Self.options())
        for (index, unit) in Self.units.enumerated() {
            if index % 2 == 0 { first.add(unit) } else { second.add(unit) }
        }
        second.merge(first)
        #expect(second.report() == whole.report())
        // Per user, two sessions of one person: the earliest exposure decides the arm.
        var options = Self.options()
        options.unit = .user
        var people = DiscoveryAggregator(options: options)
        people.add(Self.unit(20, user: "p", [(Self.second, .expose("holdout"))]))
        people.add(Self.unit(21, user: "p", [(Self.day, .expose("shown")), (Self.day + Self.second, .show)]))
        people.add(Self.unit(22, user: "q", [(Self.second, .expose("shown")), (2 * Self.second, .show)]))
        let holdout = try #require(people.report().holdout?.rows.first)
        #expect(holdout.holdout.units == 1 && holdout.treated.units == 1)
    }

    @Test func withoutAHoldoutTheReportHasNone() throws {
        var aggregator = DiscoveryAggregator()
        for unit in Self.units { aggregator.add(unit) }
        let report = aggregator.report()
        #expect(report.holdout == nil)
        #expect(try !report.rendered(.json).contains("holdout"))
        var with = DiscoveryAggregator(options: Self.options())
        for unit in Self.units { with.add(unit) }
        let text = try with.report().rendered(.text)
        #expect(text.contains("Randomized holdout: experiment tips"))
        #expect(with.report().html().contains("data-table=\"discovery-holdout\""))
    }
}
