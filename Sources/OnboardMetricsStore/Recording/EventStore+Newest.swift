import Foundation
import OnboardMetricsPostgres

extension EventStore {
    /// When the newest stored event happened (its `occurred_at`), `nil` with no events. "Newest"
    /// is by `event_id`, a time-ordered UUIDv7: the primary key's index answers without a scan.
    /// - Throws: `PostgresError`.
    package func newestEvent(on connection: PostgresConnection) throws -> Date? {
        try connection.query("SELECT occurred_at FROM events ORDER BY event_id DESC LIMIT 1").first?["occurred_at"].date
    }
}
