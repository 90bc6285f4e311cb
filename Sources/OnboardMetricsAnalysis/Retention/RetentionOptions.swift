import Foundation
import OnboardMetricsReader

/// What a retention-after-onboarding report counts (``RetentionReport``).
public struct RetentionOptions: Sendable, Hashable {
    /// How units are split into the groups compared.
    public enum Grouping: Sendable, Hashable {
        /// By how the onboarding ended: completed, dropped, in progress.
        case outcome
        /// By the variant of an experiment the unit was first exposed to ("(not exposed)" for none).
        case variant(String)
        /// By the flow version of the onboarding session.
        case flowVersion

        /// Parses `outcome`, `variant:EXPERIMENT` or `flow_version`; `nil` for anything else.
        public init?(_ text: String) {
            switch text {
            case "outcome": self = .outcome
            case "flow_version": self = .flowVersion
            default:
                guard text.hasPrefix("variant:"), text.count > "variant:".count else { return nil }
                self = .variant(String(text.dropFirst("variant:".count)))
            }
        }

        /// The text ``init(_:)`` reads.
        public var text: String {
            switch self {
            case .outcome: "outcome"
            case .variant(let experiment): "variant:" + experiment
            case .flowVersion: "flow_version"
            }
        }
    }

    /// Users (default: a person's first onboarding session starts their clock) or sessions (every
    /// onboarding session starts one; activity is still the whole person's).
    public var unit: FunnelOptions.Unit = .user
    /// The groups compared. Default: by outcome.
    public var grouping: Grouping = .outcome
    /// The days measured: day N retained = any event in [start + N days, start + N + 1 days).
    public var days: [Int] = [1, 7, 30]
    /// The flow funnel's conversion window, which decides the outcome. Default 7 days.
    public var window: TimeInterval = 7 * 86_400
    /// The flow funnel's inactivity timeout, which decides in progress versus dropped. Default 30 minutes.
    public var inactivity: TimeInterval = 30 * 60
    /// Onboarding sessions that started at or after this instant; `nil` for all.
    public var since: Date?
    /// The end of what is observed: onboarding sessions that started before it, activity before
    /// it. `nil`: the newest event read.
    public var until: Date?
    /// Confidence level of the intervals. Default 0.95.
    public var level = 0.95

    /// Default options.
    public init() {}

    /// Days as `--days` and the dashboard's `days` take them: whole numbers from 0 to 3650,
    /// comma-separated, spaces allowed; repeats once; sorted.
    /// - Returns: the days, or the first part that is not one (`.failure`).
    public static func days(parsing text: String) -> Result<[Int], DayParseFailure> {
        var parsed: [Int] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            guard let day = Int(trimmed), (0...3_650).contains(day) else {
                return .failure(DayParseFailure(part: trimmed))
            }
            if !parsed.contains(day) { parsed.append(day) }
        }
        return .success(parsed.sorted())
    }

    /// A part of a days list that is not a whole number from 0 to 3650.
    public struct DayParseFailure: Error, Sendable {
        public var part: String
    }

    /// A reader of every event in `[since, until)`, sessions kept open across gaps as long as the
    /// conversion window (the onboarding session's outcome needs them whole).
    public var reader: SessionReader {
        SessionReader(since: since, until: until, closeAfter: window + inactivity)
    }
}
