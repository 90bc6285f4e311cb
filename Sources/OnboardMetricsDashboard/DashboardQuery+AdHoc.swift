import Foundation
import OnboardMetricsAnalysis

extension DashboardQuery {
    /// The options of `funnel report --steps`: `steps` (comma-separated), `order` (ordered,
    /// strict, any), `per`, `window`, `inactivity`, `since`, `until`; `nil` without `steps`. The
    /// other parameters are checked either way, so a bad one is a 400 even before steps are named.
    /// - Throws: ``DashboardError`` `.badRequest` naming the parameter.
    package func adHocFunnel() throws -> (funnel: AdHocFunnel, options: FunnelOptions)? {
        let order: AdHocFunnel.Order = try choice("order", "order must be ordered, strict or any") ?? .ordered
        var options = try funnelOptions()
        // `funnel report --steps` has no breakdown.
        options.breakdown = nil
        guard let steps = value("steps") else { return nil }
        do {
            let funnel = try AdHocFunnel(
                steps: AdHocFunnel.steps(parsing: steps), order: order, window: options.window, unit: options.unit)
            return (funnel, options)
        } catch let error as AdHocFunnelError {
            throw DashboardError(.badRequest, (error.code == .invalidWindow ? "window: " : "steps: ") + error.message)
        }
    }
}
