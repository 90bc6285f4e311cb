import Foundation
import OnboardMetricsStatistics

/// Onboarding over time: per period of session start (day, ISO week or month, UTC) and per
/// breakdown value, sessions started, completed, dropped and in progress, the completion rate
/// with its Wilson interval, and each step's conversion from the start.
///
/// Sessions are replayed as the funnel report replays them (``FunnelReport``): the completion
/// rate is completed among sessions not in progress, and step conversion is viewed among eligible
/// sessions not in progress. Recent periods hold many sessions still under way; a period where
/// more than ``inProgressThreshold`` of the sessions are in progress is marked
/// ``Period/mostlyInProgress``, so a reader does not take its rate for a drop; one where at least
/// ``provisionalThreshold`` are is ``Period/provisional``: its rate counts the sessions that
/// finished fast but not yet the slow ones. Periods without
/// sessions between the first and the last are listed with zero counts and no rate.
public struct TrendReport: Sendable, Hashable, Codable {
    /// One step's conversion in a period.
    public struct StepPoint: Sendable, Hashable, Codable {
        public var step: String
        /// Sessions not in progress the step applied to.
        public var eligible: Int
        public var viewed: Int
        /// viewed / eligible; `nil` without eligible sessions.
        public var conversion: Double?
    }

    /// One period of one series.
    public struct Period: Sendable, Hashable, Codable {
        /// Its first instant (UTC midnight).
        public var start: Date
        /// The first instant after it.
        public var end: Date
        /// 2026-01-05, 2026-W02 or 2026-01.
        public var label: String
        public var started: Int
        public var completed: Int
        public var dropped: Int
        public var inProgress: Int
        /// completed / (started − in progress); `nil` when all are in progress or none started.
        public var completionRate: Double?
        /// Wilson interval of the completion rate.
        public var interval: ConfidenceInterval?
        /// in progress / started.
        public var inProgressShare: Double?
        /// More than the threshold of its sessions are still in progress: its rate is provisional.
        public var mostlyInProgress: Bool
        /// At least ``TrendReport/provisionalThreshold`` of its sessions are still in progress
        /// (always so when mostly in progress): its rate may still move.
        public var provisional: Bool
        public var steps: [StepPoint]
    }

    /// The periods of one breakdown value (or of everyone, `breakdown` nil).
    public struct Series: Sendable, Hashable, Codable {
        public var breakdown: String?
        public var periods: [Period]
    }

    public var flowID: String
    public var flowVersion: Int
    public var interval: TrendInterval
    public var windowSeconds: Double
    public var inactivitySeconds: Double
    public var since: Date?
    public var until: Date?
    /// The instant in progress and dropped were judged at.
    public var reportEnd: Date
    public var breakdownBy: String?
    /// Confidence level of the intervals.
    public var level: Double
    /// The in-progress share above which a period is marked.
    public var inProgressThreshold: Double
    /// The in-progress share from which a period is provisional.
    public var provisionalThreshold: Double
    /// Step ids in flow order.
    public var steps: [String]
    public var series: [Series]
    /// Sessions read that belong to other flows (not counted).
    public var otherFlowSessions: Int
}
