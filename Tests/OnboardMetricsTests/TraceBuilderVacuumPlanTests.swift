import Testing

@testable import OnboardMetricsReader

/// When a catch-up vacuums the traces: when autovacuum would, by PostgreSQL's rule for inserts
/// ("Routine Vacuuming": vacuum insert threshold = vacuum base insert threshold + vacuum insert
/// scale factor × number of tuples), the figures worked by hand here.
@Suite struct TraceBuilderVacuumPlanTests {
    static func plan(
        traces: Double, threshold: Double = 1_000, scale: Double = 0.2, mayVacuum: Bool = true
    ) -> TraceBuilder.VacuumPlan {
        TraceBuilder.VacuumPlan(
            tracesBefore: traces, insertThreshold: threshold, insertScaleFactor: scale, mayVacuum: mayVacuum)
    }

    @Test func aBuildVacuumsOncePastAutovacuumsInsertThreshold() {
        // 1,000 + 0.2 × 600,000 = 121,000 inserts.
        #expect(!Self.plan(traces: 600_000).vacuums(rebuilt: 121_000))
        #expect(Self.plan(traces: 600_000).vacuums(rebuilt: 121_001))
        // A table never analyzed (reltuples -1) counts as empty: 1,000.
        #expect(!Self.plan(traces: -1).vacuums(rebuilt: 1_000))
        #expect(Self.plan(traces: -1).vacuums(rebuilt: 1_001))
        // A table's own settings: 10 + 0.05 × 2,000 = 110.
        #expect(!Self.plan(traces: 2_000, threshold: 10, scale: 0.05).vacuums(rebuilt: 110))
        #expect(Self.plan(traces: 2_000, threshold: 10, scale: 0.05).vacuums(rebuilt: 111))
    }

    @Test func noVacuumWhereAutovacuumWouldNotOrTheRoleMayNot() {
        // -1: autovacuum off for the server or the table, or its insert trigger disabled.
        #expect(!Self.plan(traces: 0, threshold: -1).vacuums(rebuilt: 1_000_000))
        #expect(!Self.plan(traces: 0, mayVacuum: false).vacuums(rebuilt: 1_000_000))
    }
}
