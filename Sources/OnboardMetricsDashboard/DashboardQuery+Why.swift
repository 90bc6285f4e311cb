import Foundation
import OnboardMetricsAnalysis
import OnboardMetricsReader
import OnboardMetricsStatistics

extension DashboardQuery {
    /// The options of `funnel retention --flow`: `by`, `days`, `per` (default user), `since`,
    /// `until`, `window`, `inactivity`.
    /// - Throws: ``DashboardError`` `.badRequest` naming the parameter.
    package func retentionOptions() throws -> RetentionOptions {
        var options = RetentionOptions()
        if let by = value("by") {
            guard let grouping = RetentionOptions.Grouping(by) else {
                throw DashboardError(.badRequest, "by must be outcome, variant:EXPERIMENT or flow_version")
            }
            options.grouping = grouping
        }
        if let days = value("days") {
            guard case .success(let parsed) = RetentionOptions.days(parsing: days) else {
                throw DashboardError(.badRequest, "days takes whole numbers from 0 to 3650, comma-separated")
            }
            options.days = parsed
        }
        options.unit = try unit(default: .user)
        let funnel = try funnelOptions()
        options.window = funnel.window
        options.inactivity = funnel.inactivity
        options.since = funnel.since
        options.until = funnel.until
        return options
    }

    /// The options of `funnel correlate --flow`: `step`, `per`, `since`, `until`, `window`,
    /// `inactivity`, `breakdown`, `correction`, `top`.
    package func correlationOptions() throws -> CorrelationOptions {
        var options = CorrelationOptions()
        options.funnel = try funnelOptions()
        options.step = value("step")
        if let correction: MultipleComparisonCorrection = try choice("correction", "correction must be holm or bh") {
            options.correction = correction
        }
        if let top = value("top") {
            guard let parsed = Int(top), parsed >= 0 else { throw DashboardError(.badRequest, "top must be 0 or more") }
            options.top = parsed
        }
        return options
    }

    /// The options of `funnel paths --flow`: `step` (after a drop there) or `between=A,B`, `depth`,
    /// `top`, `per`, `since`, `until`, `window`, `inactivity`.
    package func pathOptions() throws -> PathOptions {
        var options = PathOptions()
        if let between = value("between") {
            guard let mode = PathOptions.Mode(between: between) else {
                throw DashboardError(.badRequest, "between takes two step ids, A,B")
            }
            options.mode = mode
        } else {
            options.mode = .afterDrop(step: value("step"))
        }
        if let depth = value("depth") {
            guard let parsed = Int(depth), (1...20).contains(parsed) else {
                throw DashboardError(.badRequest, "depth must be from 1 to 20")
            }
            options.depth = parsed
        }
        if let top = value("top") {
            // A page lists what a person reads: every distinct path of a large database would be
            // a page of megabytes (a review).
            guard let parsed = Int(top), (1...1_000).contains(parsed) else {
                throw DashboardError(.badRequest, "top must be from 1 to 1000")
            }
            options.top = parsed
        }
        options.unit = try unit(default: .session)
        let funnel = try funnelOptions()
        options.window = funnel.window
        options.inactivity = funnel.inactivity
        options.since = funnel.since
        options.until = funnel.until
        return options
    }

}
