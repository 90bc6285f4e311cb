import Foundation
import OnboardMetrics

/// The demo's "why" section: at the step where most sessions drop, what goes with dropping
/// (correlation), what droppers did next (paths), and whether completers are still active a week
/// later than droppers (retention).
struct DemoWhy: Sendable {
    /// The step with the most sessions dropped there.
    var step: String
    var correlation: CorrelationReport
    var paths: PathReport
    var retention: RetentionReport

    /// Builds the three reports from the sessions in memory, as of `asOf`; `nil` when no session
    /// dropped at any step.
    static func build(flow: FlowDefinition, funnel: FunnelReport, sessions: [RecordedSession], asOf: Date) throws
        -> DemoWhy?
    {
        guard let rows = funnel.groups.first?.steps,
            let worst = rows.max(by: { ($0.droppedHere, $1.step) < ($1.droppedHere, $0.step) }), worst.droppedHere > 0
        else { return nil }
        var correlation = CorrelationOptions()
        correlation.step = worst.step
        correlation.top = 3
        var paths = PathOptions()
        paths.mode = .afterDrop(step: worst.step)
        paths.top = 3
        var retention = RetentionOptions()
        retention.days = [7]
        retention.until = asOf
        return DemoWhy(
            step: worst.step,
            correlation: try CorrelationAggregator(flow: flow, options: correlation, now: asOf).report(of: sessions),
            paths: try PathAggregator(flow: flow, options: paths, now: asOf).report(of: sessions),
            retention: try RetentionAggregator(flow: flow, options: retention, now: asOf).report(of: sessions))
    }

    /// A few lines for the terminal; the full reports are in report.html.
    var summary: String {
        var lines = ["Why sessions drop at \(step), the step where most drop (details in report.html):"]
        if let group = correlation.groups.first {
            let top = (group.positive.prefix(2) + group.negative.prefix(2)).map {
                "\($0.name) (odds ratio \(String(format: "%.2f", $0.oddsRatio))\($0.significant ? "" : ", not significant"))"
            }
            lines.append(
                "  goes with moving on (> 1) or dropping (< 1): "
                    + (top.isEmpty ? "nothing tested" : top.joined(separator: "; ")))
        }
        let next = paths.paths.prefix(3).map {
            "\($0.events.joined(separator: " > ")) \(NumberText.percent($0.share))"
        }
        lines.append("  what they did next: " + (next.isEmpty ? "–" : next.joined(separator: "; ")))
        let day7 = retention.groups.map { group in
            "\(group.group) \(NumberText.percent(group.days.first?.rate)) (\(group.days.first?.retained ?? 0)/\(group.days.first?.eligible ?? 0))"
        }
        lines.append("  active on day 7 after onboarding: " + (day7.isEmpty ? "–" : day7.joined(separator: ", ")))
        return lines.joined(separator: "\n")
    }
}
