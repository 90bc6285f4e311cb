import Foundation
import OnboardMetricsReader

extension UnitListAggregator: SessionAggregator {
    public mutating func merge(_ other: UnitListAggregator) {
        listed += other.listed
        users.mergeValues(other.users) { $0.merge($1) }
        selection.merge(other.selection)
    }

    public mutating func report() throws -> UnitListReport {
        let units = options.unit == .session ? listed : users.values.filter { matches($0.state) }
        let date = { (time: Int64) in Date(timeIntervalSince1970: Double(time) / 1_000_000) }
        let rows =
            units
            .sorted { ($0.start, $0.sessionID.uuidString) < ($1.start, $1.sessionID.uuidString) }
            .map { unit in
                UnitListReport.Row(
                    userID: unit.userID, sessionID: unit.sessionID, sessions: unit.sessions, start: date(unit.start),
                    lastEvent: date(unit.lastEvent), outcome: Self.outcome(unit.state.status))
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
