import Foundation
import OnboardMetricsAnalysis
import OnboardMetricsReader
import OnboardMetricsSDK

/// A page's query string: the report options a link carries (`since`, `until`, `per`,
/// `breakdown`, `window`, `inactivity`, `metric`), parsed as the CLI parses its options, and
/// `format=json` for the JSON twin.
package struct DashboardQuery: Sendable {
    /// (name, value) pairs in order, percent-decoded.
    package var items: [(name: String, value: String)]

    package init(items: [(name: String, value: String)]) {
        self.items = items
    }

    /// The last value of `name`, `nil` when absent or empty.
    package func value(_ name: String) -> String? {
        items.last { $0.name == name }.map(\.value).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Every non-empty value of `name`, in order.
    package func values(_ name: String) -> [String] {
        items.filter { $0.name == name && !$0.value.isEmpty }.map(\.value)
    }

    /// The funnel options of `funnel report --flow`: defaults where a parameter is absent.
    /// - Throws: ``DashboardError`` `.badRequest` naming the parameter.
    package func funnelOptions() throws -> FunnelOptions {
        var options = FunnelOptions()
        options.unit = try unit(default: options.unit)
        if let window = try duration("window") { options.window = window }
        if let inactivity = try duration("inactivity") { options.inactivity = inactivity }
        options.since = try date("since")
        options.until = try date("until")
        if let since = options.since, let until = options.until, since >= until {
            throw DashboardError(.badRequest, "since is not before until: the range is empty")
        }
        options.breakdown = value("breakdown") ?? value("by")
        return options
    }

    /// The most distinct `metric`s a page may ask for.
    package static let maximumMetrics = 20

    /// The options of `funnel experiment KEY`: `metric` (repeatable, at most ``maximumMetrics``
    /// distinct, repeats once; default completion), `per`,
    /// `window`, `since`, `until`, `engine`, `mde`.
    /// - Throws: ``DashboardError`` `.badRequest` naming the parameter.
    package func experimentOptions(key: String) throws -> ExperimentOptions {
        var options = ExperimentOptions(key: key)
        do {
            // Each metric is a pass over every session: a page asks for a few, once each (a URL
            // has room for thousands).
            var seen = Set<String>()
            let metrics = values("metric").filter { seen.insert($0).inserted }
            guard metrics.count <= Self.maximumMetrics else {
                throw DashboardError(
                    .badRequest, "metric: at most \(Self.maximumMetrics) metrics, not \(metrics.count)")
            }
            options.metrics = try (metrics.isEmpty ? ["completion"] : metrics).map(
                ExperimentOptions.Metric.init(parsing:))
        } catch let error as ExperimentError {
            throw DashboardError(.badRequest, "metric: \(error.message)")
        }
        options.unit = try unit(default: options.unit)
        if let engine: ExperimentOptions.Engine = try choice("engine", "engine must be frequentist or bayesian") {
            options.engine = engine
        }
        if let mde = value("mde") {
            guard let parsed = Double(mde), parsed > 0, parsed < 1 else {
                throw DashboardError(.badRequest, "mde must be between 0 and 1 (e.g. 0.02)")
            }
            options.mde = parsed
        }
        if let window = try duration("window") { options.window = window }
        options.since = try date("since")
        options.until = try date("until")
        return options
    }

    /// A parameter that takes one of a type's raw values; nil when absent.
    /// - Throws: ``DashboardError`` `.badRequest` with `message` for any other value.
    func choice<Value: RawRepresentable>(_ name: String, _ message: String) throws -> Value?
    where Value.RawValue == String {
        guard let text = value(name) else { return nil }
        guard let parsed = Value(rawValue: text) else { throw DashboardError(.badRequest, message) }
        return parsed
    }

    /// `per`: session or user; `fallback` when absent.
    func unit(default fallback: FunnelOptions.Unit) throws -> FunnelOptions.Unit {
        try choice("per", "per must be session or user") ?? fallback
    }

    /// A time bound: `2026-01-31` or ISO 8601.
    func date(_ name: String) throws -> Date? {
        guard let text = value(name) else { return nil }
        guard let date = DateText.parse(text), !DateText.isBeforeEvents(date) else {
            throw DashboardError(
                .badRequest, "\(name) is not a date from 1970 on: use 2026-01-31 or 2026-01-31T09:00:00Z")
        }
        return date
    }

    /// A duration: `7d`, `12h`, `30m`.
    func duration(_ name: String) throws -> TimeInterval? {
        guard let text = value(name) else { return nil }
        do {
            return try DurationText.parse(text)
        } catch {
            throw DashboardError(.badRequest, "\(name) \(error.message)")
        }
    }

    /// `items` as a query string (without `?`), percent-encoded; `format` left out.
    package var encoded: String {
        items.filter { $0.name != "format" && !$0.value.isEmpty }.map {
            "\(Self.escape($0.name))=\(Self.escape($0.value))"
        }
        .joined(separator: "&")
    }

    /// Parses `a=1&b=2` (`+` as space, percent-decoded).
    package static func parse(_ query: String?) -> DashboardQuery {
        guard let query, !query.isEmpty else { return DashboardQuery(items: []) }
        let items = query.split(separator: "&").map { pair -> (name: String, value: String) in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String {
                let spaced = text.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
        return DashboardQuery(items: items)
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:")

    /// Percent-encodes a query name or value (unreserved characters kept).
    package static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }
}
