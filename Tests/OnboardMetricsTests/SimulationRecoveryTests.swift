import Foundation
import Testing

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsGeneration
@testable import OnboardMetricsPostgres
@testable import OnboardMetricsReader
@testable import OnboardMetricsSDK

/// The forecast recovers a generator experiment's known true effect.
///
/// The health-study scenario runs an experiment on the consent copy: its `short-copy` variant
/// lowers the drop probability on the consent step by a known amount (`dropDelta`). From the
/// control arm's sessions only, `simulate` is told the treatment's consent behaviour — the model's
/// continuation rate there, `1 − (drop + dropDelta)` — and forecasts completion.
///
/// The true effect on completion is computed from the behaviour model, independently of the
/// simulator: per control session, the probability of completing under each variant
/// (`GeneratorRecoveryTests.Expectation`, which propagates probability mass over the flow with
/// the model's per-context drop, skip, jump and back probabilities), averaged over the sessions.
/// It must lie in the forecast delta's 99 % interval. The treatment arm's recorded completion
/// must also agree with the forecast within the two samples' combined noise.
@Suite struct SimulationRecoveryTests {
    static let sessions = 100_000
    static let seed: UInt64 = 20_261_122

    @Test func forecastRecoversTheConsentCopyEffect() async throws {
        var scenario = Scenario.healthStudy
        scenario.model.faults = .none
        let generator = try SyntheticGenerator(scenario: scenario, seed: Self.seed)
        let model = scenario.model
        let experiment = try #require(model.experiment)
        let flow = try #require(scenario.flows.first)
        let periodEnd = try #require(
            Timestamp.parse(generator.report(sessions: Self.sessions, summary: GenerationSummary()).periodEnd))
        // On a thread of its own, not Dispatch's workers (on Linux the cooperative pool), so the
        // suites that wait on that pool in the same process are not starved.
        let sessions = try await BlockingIO.run {
            (0..<Self.sessions).flatMap { RecordedSession.group(generator.session($0).events) }
                .sorted { $0.sessionID.uuidString < $1.sessionID.uuidString }
        }

        let control = experiment.variants[0]
        let treatment = experiment.variants[1]
        let consent = model.behaviour(flow: flow.id, step: experiment.step).probabilities(for: [:])
        let treatedContinuation = 1 - (consent.drop + experiment.dropDelta[1])

        var options = SimulationOptions(candidate: flow, baseline: flow)
        options.variant = .init(experiment: experiment.key, variant: control)
        options.assumptions = [experiment.step: treatedContinuation]
        options.level = 0.99
        // Sessions the generator cut off at the period's end are left out, as in GeneratorRecoveryTests.
        let until = periodEnd.addingTimeInterval(-model.timing.inProgressMinutes * 60)
        options.until = until
        let report = try SimulationSampler(options: options, now: periodEnd.addingTimeInterval(options.window)).report(
            of: sessions)

        let flows = [flow.id: flow]
        let untilMicroseconds = RecordedEvent.microseconds(until)
        var trueDelta = 0.0
        var controlSessions = 0
        var treated = (sessions: 0, completed: 0)
        for session in sessions where session.startTime < untilMicroseconds {
            switch session.variant(of: experiment.key) {
            case control:
                controlSessions += 1
                let under = { (variant: String) in
                    GeneratorRecoveryTests.Expectation(
                        model: model, flows: flows, context: session.context, variant: variant
                    ).completion(of: flow)
                }
                trueDelta += under(treatment) - under(control)
            case treatment:
                treated.sessions += 1
                if session.events.contains(where: { $0.kind == .flowCompleted }) { treated.completed += 1 }
            default: continue
            }
        }
        trueDelta /= Double(controlSessions)
        #expect(report.data.sessions == controlSessions)
        #expect(report.backTest.withinInterval)

        let delta = try #require(report.completionDelta.interval)
        #expect(delta.contains(trueDelta), "true effect \(trueDelta) outside \(delta)")
        #expect(trueDelta > 0.02, "the experiment's effect should be visible: \(trueDelta)")

        let forecast = try #require(report.forecastCompletion.value)
        let interval = try #require(report.forecastCompletion.interval)
        let z = 2.5758
        let forecastError = (interval.upper - interval.lower) / (2 * z)
        let recorded = Double(treated.completed) / Double(treated.sessions)
        let recordedError = (recorded * (1 - recorded) / Double(treated.sessions)).squareRoot()
        let combined = (forecastError * forecastError + recordedError * recordedError).squareRoot()
        #expect(abs(recorded - forecast) < z * combined, "treatment recorded \(recorded), forecast \(forecast)")
    }
}
