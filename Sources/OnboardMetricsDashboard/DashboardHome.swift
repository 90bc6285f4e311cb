import Foundation

/// What the home page shows, and its JSON twin: per flow, started and completion over the last 7
/// and 30 days and the sessions started per day; the experiments; the highlights shown in the last
/// 30 days with their discovery rate.
struct DashboardHome: Sendable, Encodable {
    struct Flow: Sendable, Encodable {
        var id: String
        var version: Int
        var last7Days: Window
        var last30Days: Window
        /// Sessions started per UTC day, the last 30 days, oldest first (the sparkline).
        var dailyStarted: [Int]

        enum CodingKeys: String, CodingKey {
            case id, version
            case last7Days = "last_7_days"
            case last30Days = "last_30_days"
            case dailyStarted = "daily_started"
        }
    }

    struct Window: Sendable, Encodable {
        var started: Int
        var completed: Int
        var completionRate: Double?
    }

    struct Experiment: Sendable, Encodable {
        var key: String
        var variants: [String]
    }

    /// A highlight as `funnel discovery --since NOW-30d` counts it.
    struct Highlight: Sendable, Encodable {
        var highlight: String
        var feature: String?
        var shown: Int
        var discovered: Int
        var rate: Double?
    }

    var asOf: Date
    var newestEvent: Date?
    var flows: [Flow]
    var experiments: [Experiment]
    var highlights: [Highlight]
}
