import Foundation
import OnboardMetricsSDK

/// A report's time bounds as people type them: a day (`2026-01-31`, midnight UTC) or an ISO 8601
/// time (`2026-01-31T09:00:00Z`). Shared by the CLI's `--since`/`--until` and the dashboard's query.
package enum DateText {
    /// The instant `text` names; `nil` when it is not a date.
    package static func parse(_ text: String) -> Date? {
        TimestampParser().parse(text.count == 10 ? text + "T00:00:00Z" : text)
    }

    /// Event ids (UUIDv7) count time from 1970: an earlier bound would select nothing, silently.
    package static func isBeforeEvents(_ date: Date) -> Bool { date.timeIntervalSince1970 < 0 }
}
