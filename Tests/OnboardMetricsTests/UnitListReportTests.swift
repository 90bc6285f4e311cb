import Foundation
import Testing

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsGeneration
@testable import OnboardMetricsReader
@testable import OnboardMetricsRendering
@testable import OnboardMetricsSDK

/// The unit list against the flow funnel, which counts the same units its own way: for every
/// step and status, the units listed are the funnel's count, per session and per user.
@Suite struct UnitListReportTests {
    static let sessions: [RecordedSession] = {
        guard let generator = try? SyntheticGenerator(scenario: .healthStudy, seed: 23) else { return [] }
        // Users of the generator come back for more sessions now and then: per user merges them.
        return RecordedSession.group((0..<1_500).flatMap { generator.session($0).events })
    }()

    static func list(
        _ status: UnitListOptions.Status, step: String?, unit: FunnelOptions.Unit, now: Date
    ) throws -> UnitListReport {
        var options = UnitListOptions()
        options.status = status
        options.step = step
        options.unit = unit
        return try UnitListAggregator(flow: ExampleFlows.healthStudy, options: options, now: now).report(of: sessions)
    }

    @Test(arguments: FunnelOptions.Unit.allCases)
    func everyStatusAtEveryStepIsTheFunnelsCount(unit: FunnelOptions.Unit) throws {
        #expect(Self.sessions.count > 1_000)
        let now = Date(timeIntervalSince1970: 1_900_000_000)
        var options = FunnelOptions()
        options.unit = unit
        let funnel = try FunnelAggregator(flow: ExampleFlows.healthStudy, options: options, now: now)
            .report(of: Self.sessions)
        let group = try #require(funnel.groups.first)
        for row in group.steps {
            let counts: [(UnitListOptions.Status, Int)] = [
                (.viewed, row.viewed), (.completed, row.completed), (.skipped, row.skipped),
                (.dropped, row.droppedHere), (.inProgress, row.inProgressHere),
            ]
            for (status, expected) in counts {
                let list = try Self.list(status, step: row.step, unit: unit, now: now)
                #expect(list.units == expected, "\(unit) \(status) at \(row.step)")
                #expect(list.rows.count == list.units)
            }
        }
        #expect(try Self.list(.viewed, step: nil, unit: unit, now: now).units == group.totals.started)
        #expect(try Self.list(.completed, step: nil, unit: unit, now: now).units == group.totals.completed)
        #expect(try Self.list(.dropped, step: nil, unit: unit, now: now).units == group.totals.dropped)
    }

    @Test func rowsNameEachUnitOnceInStartOrder() throws {
        let list = try Self.list(.completed, step: nil, unit: .user, now: Date())
        #expect(Set(list.rows.map(\.userID)).count == list.rows.count)
        #expect(list.rows.map(\.start) == list.rows.map(\.start).sorted())
        #expect(list.rows.allSatisfy { $0.outcome == "completed" && $0.start <= $0.lastEvent })
        let csv = try list.rendered(.csv)
        #expect(csv.hasPrefix("user_id,session_id,sessions,start,last_event,outcome\n"))
        #expect(csv.split(separator: "\n").count == list.units + 1)
    }

    /// The report lets the per-user store go as it lists; a second report lists the same units.
    @Test(arguments: FunnelOptions.Unit.allCases)
    func aSecondReportListsTheSameUnits(unit: FunnelOptions.Unit) throws {
        var options = UnitListOptions()
        options.status = .dropped
        options.unit = unit
        let now = Date()
        var aggregator = try UnitListAggregator(flow: ExampleFlows.healthStudy, options: options, now: now)
        for session in Self.sessions { aggregator.add(session) }
        let first = try aggregator.report()
        #expect(first.units > 50)
        #expect(try aggregator.report() == first)
    }

    @Test func aStepOutsideTheFlowAndSkippedWithoutAStepAreRefused() {
        #expect(throws: UnitListError.self) { try Self.list(.viewed, step: "nope", unit: .session, now: Date()) }
        #expect(throws: UnitListError.self) { try Self.list(.skipped, step: nil, unit: .session, now: Date()) }
    }
}
