import Foundation
import OnboardMetricsAnalysis
import OnboardMetricsStatistics

extension DashboardQuery {
    /// The options of `funnel trends --flow`: `interval` (day, week, month; default week), `by`
    /// or `breakdown`, `since`, `until`, `window`, `inactivity` (per is not a trend option).
    /// - Throws: ``DashboardError`` `.badRequest` naming the parameter.
    package func trendOptions() throws -> TrendOptions {
        var options = TrendOptions()
        if let interval: TrendInterval = try choice("interval", "interval must be day, week or month") {
            options.interval = interval
        }
        var funnel = try funnelOptions()
        funnel.unit = .session
        options.funnel = funnel
        return options
    }

    /// The options of `funnel compare --flow`: two cohorts, by start dates (`a_since`, `a_until`,
    /// `b_since`, `b_until`) or by a context attribute (`property`, `a`, `b`); `alpha`,
    /// `correction`, and the funnel's `since`, `until`, `window`, `inactivity`.
    package func comparisonOptions() throws -> ComparisonOptions {
        let dateNames = ["a_since", "a_until", "b_since", "b_until"]
        let dates = dateNames.contains { value($0) != nil }
        let values = ["property", "a", "b"].contains { value($0) != nil }
        var options: ComparisonOptions
        switch (dates, values) {
        case (true, false):
            let a = (try date("a_since"), try date("a_until"))
            let b = (try date("b_since"), try date("b_until"))
            for (name, since, until) in [("a", a.0, a.1), ("b", b.0, b.1)] {
                if let since, let until, since >= until {
                    throw DashboardError(
                        .badRequest, "\(name)_since is not before \(name)_until: cohort \(name) is empty")
                }
            }
            // Overlapping ranges would count a session in both cohorts.
            if (a.0 ?? .distantPast) < (b.1 ?? .distantFuture), (b.0 ?? .distantPast) < (a.1 ?? .distantFuture) {
                throw DashboardError(.badRequest, "a_since..a_until and b_since..b_until overlap")
            }
            options = ComparisonOptions(a: .started(since: a.0, until: a.1), b: .started(since: b.0, until: b.1))
        case (false, true):
            guard let property = value("property"), let a = value("a"), let b = value("b") else {
                throw DashboardError(.badRequest, "property needs both a and b (property=appVersion&a=1.0&b=1.1)")
            }
            guard a != b else { throw DashboardError(.badRequest, "a and b must differ") }
            options = ComparisonOptions(a: .property(property, value: a), b: .property(property, value: b))
        case (true, true):
            throw DashboardError(.badRequest, "use either a_since/a_until/b_since/b_until or property with a and b")
        case (false, false):
            throw DashboardError(
                .badRequest, "name two cohorts: a_since, a_until, b_since, b_until, or property with a and b")
        }
        if let alpha = value("alpha") {
            guard let parsed = Double(alpha), parsed > 0, parsed < 1 else {
                throw DashboardError(.badRequest, "alpha must be between 0 and 1")
            }
            options.alpha = parsed
        }
        if let correction: MultipleComparisonCorrection = try choice("correction", "correction must be holm or bh") {
            options.correction = correction
        }
        var funnel = try funnelOptions()
        funnel.unit = .session
        funnel.breakdown = nil
        options.funnel = funnel
        return options
    }

    /// The options of `funnel users --flow`: `step`, `status` (default dropped), `per`, `since`,
    /// `until`, `window`, `inactivity`.
    package func unitListOptions() throws -> UnitListOptions {
        var options = UnitListOptions()
        if let status: UnitListOptions.Status = try choice(
            "status", "status must be viewed, completed, skipped, dropped or in_progress")
        {
            options.status = status
        }
        options.step = value("step")
        if options.step == nil, options.status == .skipped {
            throw DashboardError(.badRequest, "status skipped needs a step")
        }
        let funnel = try funnelOptions()
        options.unit = funnel.unit
        options.window = funnel.window
        options.inactivity = funnel.inactivity
        options.since = funnel.since
        options.until = funnel.until
        return options
    }

    /// The options of `funnel discovery`: `highlight`, `window` (default 7d), `holdout`,
    /// `holdout_variant`, `per`, `since`, `until`.
    package func discoveryOptions() throws -> DiscoveryOptions {
        var options = DiscoveryOptions()
        let funnel = try funnelOptions()
        if let window = try duration("window") { options.window = window }
        options.unit = funnel.unit
        options.since = funnel.since
        options.until = funnel.until
        options.highlight = value("highlight")
        options.holdout = value("holdout")
        if let variant = value("holdout_variant") { options.holdoutVariant = variant }
        return options
    }
}
