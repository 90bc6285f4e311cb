import Foundation
import OnboardMetricsReader

extension UnitListAggregator: SessionAggregator {
    public mutating func merge(_ other: UnitListAggregator) {
        listed += other.listed
        users.merge(other.users)
        selection.merge(other.selection)
    }

    public mutating func report() throws -> UnitListReport {
        var units = listed
        listed = []
        if options.unit == .user {
            // The store is let go once read, and the units sorted in place: with the store, a
            // sorted copy and the rows all held at once, 569k people listed took 356 MB.
            let held = users.takeAll()
            // Counted first, so the units are allocated once: grown by doubling, the old and the
            // new storage were held together at the last step (100 MB for 569k units).
            var matching = 0
            held.forEach { _, unit in if matches(unit.state) { matching += 1 } }
            units.reserveCapacity(units.count + matching)
            held.forEach { user, unit in
                if matches(unit.state) { units.append(unit.listed(as: user)) }
            }
        }
        units.sort { $0.sessionID.isBefore($1.sessionID, start: $0.start, otherStart: $1.start) }
        // Kept (the same storage as `units`), so that another report() lists them again.
        listed = units
        let date = { (time: Int64) in Date(timeIntervalSince1970: Double(time) / 1_000_000) }
        let rows =
            units
            .map { unit in
                UnitListReport.Row(
                    userID: unit.userID, sessionID: unit.sessionID, sessions: unit.sessions, start: date(unit.start),
                    lastEvent: date(unit.lastEvent), outcome: Self.outcome(unit.status))
            }
        return UnitListReport(
            flowID: flow.id, flowVersion: flow.version, unit: options.unit, step: options.step, status: options.status,
            since: options.since, until: options.until, reportEnd: reportEnd, units: rows.count, rows: rows)
    }

    static func outcome(_ status: FunnelUnitState.Status) -> String {
        switch status {
        case .completed: "completed"
        case .dropped: "dropped"
        case .inProgress: "in_progress"
        }
    }
}
