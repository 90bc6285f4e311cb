import Foundation
import OnboardMetrics

/// The reports `funnel demo` prints and writes: the health-study funnel, its trend per day,
/// conformance, experiment and a forecast of a shorter flow, feature discovery, and why sessions
/// drop where most drop (correlation, paths, retention).
struct DemoReports: Sendable {
    var funnel: FunnelReport
    var discovery: DiscoveryReport
    var conformance: ConformanceReport
    /// The health-study experiment on the consent step's copy.
    var experiment: ExperimentReport
    /// What removing the health study's modules screen would do, forecast from its sessions.
    var forecast: SimulationReport
    /// The health-study completion rate per day of session start.
    var trend: TrendReport
    /// Why sessions drop at the step where most drop; `nil` when none dropped.
    var why: DemoWhy?

    /// The forecast's candidate: the health-study flow without its `modules` step.
    static var withoutModules: FlowDefinition {
        var flow = ExampleFlows.healthStudy
        flow.version += 1
        flow.steps.removeAll { $0.id == "modules" }
        return flow
    }

    /// Flows whose sessions the reports need: the funnel's, and those that show highlights.
    static let flows: Set<String> = ["health-study", "spotlight-share", "board-creation"]

    /// Reads the events once (a replay of the whole table is most of a second run's time) and
    /// builds the three reports from the sessions of ``flows`` held in memory.
    ///
    /// The reports are as of `asOf`, the end of the generated period: the sessions the generator
    /// leaves under way there are in progress, not dropped months later (the last day's completion
    /// would otherwise fall below every other day's).
    static func build(configuration: PostgresConfiguration, quiet: Bool, asOf: Date) async throws -> DemoReports {
        let flow = ExampleFlows.healthStudy
        let catalog = try FlowCatalog(Scenario.healthStudy.flows)
        return try await ReplayProgress.run(configuration: configuration, quiet: quiet) { connection, progress in
            var sessions: [RecordedSession] = []
            // The discovery reader keeps sessions open across the window, which also covers the
            // funnel's window plus inactivity.
            let discoveryOptions = DiscoveryOptions()
            try discoveryOptions.reader.read(on: connection, progress: progress.update) { session in
                if let id = session.flowID, flows.contains(id) { sessions.append(session) }
            }
            let now = asOf
            let funnel = try FunnelAggregator(flow: flow, options: FunnelOptions(), now: now).report(of: sessions)
            var trendOptions = TrendOptions()
            trendOptions.interval = .day
            let trend = try TrendAggregator(flow: flow, options: trendOptions, now: now).report(of: sessions)
            let discovery = try DiscoveryAggregator(options: discoveryOptions).report(of: sessions)
            let conformance = try ConformanceAggregator(flow: flow, catalog: catalog).report(of: sessions)
            var experimentOptions = ExperimentOptions(key: "consent-copy")
            experimentOptions.metrics = [.step("consent"), .completion]
            experimentOptions.flow = flow
            let experiment = try ExperimentAggregator(options: experimentOptions).report(of: sessions)
            var simulation = SimulationOptions(candidate: withoutModules, baseline: flow)
            simulation.catalog = catalog
            let forecast = try SimulationSampler(options: simulation, now: now).report(of: sessions)
            let why = try DemoWhy.build(flow: flow, funnel: funnel, sessions: sessions, asOf: now)
            return DemoReports(
                funnel: funnel, discovery: discovery, conformance: conformance, experiment: experiment,
                forecast: forecast, trend: trend, why: why)
        }
    }
}
