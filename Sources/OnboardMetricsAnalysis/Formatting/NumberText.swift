import Foundation
import OnboardMetricsStatistics

/// How reports write their numbers as text, in one place for the renderers and for the sentences
/// the reports carry (warnings, assumptions): shares as percentages, differences in percentage
/// points, durations short, intervals as a range. `–` stands for a value that does not exist.
package enum NumberText {
    /// `67.4%`.
    package static func percent(_ value: Double?) -> String {
        value.map { String(format: "%.1f%%", $0 * 100) } ?? "–"
    }

    /// Seconds, short: `12.3s` under 100 s, else as ``duration(_:)``.
    package static func seconds(_ value: Double?) -> String {
        guard let value else { return "–" }
        return value < 100 ? String(format: "%.1fs", value) : duration(value)
    }

    /// A duration in its largest unit: `7d` (whole days), `1.5h`, `30.0m`, `45s`.
    package static func duration(_ seconds: Double) -> String {
        if seconds >= 86_400, seconds.truncatingRemainder(dividingBy: 86_400) == 0 {
            return "\(Int(seconds / 86_400))d"
        }
        if seconds >= 3_600 { return String(format: "%.1fh", seconds / 3_600) }
        if seconds >= 60 { return String(format: "%.1fm", seconds / 60) }
        return String(format: "%.0fs", seconds)
    }

    /// A rate's interval: `63.6% – 68.5%`.
    package static func interval(_ interval: ConfidenceInterval?) -> String {
        guard let interval else { return "–" }
        return String(format: "%.1f%% – %.1f%%", interval.lower * 100, interval.upper * 100)
    }

    /// A difference of rates in percentage points, signed: `+2.1 pp`.
    package static func points(_ value: Double?) -> String {
        value.map { String(format: "%+.1f pp", $0 * 100) } ?? "–"
    }
}
