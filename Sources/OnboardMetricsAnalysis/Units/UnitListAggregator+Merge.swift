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
        if options.unit == .user {
            users.forEach { user, unit in
                if matches(unit.state) { units.append(unit.listed(as: user)) }
            }
        }
        let date = { (time: Int64) in Date(timeIntervalSince1970: Double(time) / 1_000_000) }
        let rows =
            units
            .sorted { $0.sessionID.isBefore($1.sessionID, start: $0.start, otherStart: $1.start) }
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
