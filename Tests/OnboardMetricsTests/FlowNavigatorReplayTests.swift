import Testing

@testable import OnboardMetricsGeneration
@testable import OnboardMetricsSDK

/// Replaying recorded events through the navigator (`observe`): the deviations conformance
/// reports, one kind at a time.
@Suite struct FlowNavigatorReplayTests {
    struct ReplayRow: Sendable, CustomTestStringConvertible {
        var name: String
        var flow: FlowDefinition
        var context: [String: JSONValue]
        /// `kind step`, with `flow:step` for steps of another flow and `kind flow` for flow events.
        var recorded: [String]
        var deviations: [Deviation.Kind]
        var testDescription: String { name }
    }

    static let replayRows: [ReplayRow] = [
        ReplayRow(
            name: "unknown step", flow: ExampleFlows.healthStudy, context: [:],
            recorded: ["step_viewed welcome", "step_completed welcome", "step_viewed pricing"],
            deviations: [.unknownStep]),
        ReplayRow(
            name: "step out of order", flow: ExampleFlows.healthStudy, context: FlowNavigatorTests.noHealthAuthorized,
            recorded: ["step_viewed welcome", "step_completed welcome", "step_viewed account"],
            deviations: [.outOfOrder]),
        ReplayRow(
            name: "declared jump is legal without a jump marker", flow: ExampleFlows.healthStudy, context: [:],
            recorded: [
                "step_viewed welcome", "step_completed welcome", "step_viewed consent", "step_completed consent",
                "step_viewed account",
            ],
            deviations: []),
        ReplayRow(
            name: "condition violated", flow: ExampleFlows.healthStudy, context: FlowNavigatorTests.noHealthAuthorized,
            recorded: [
                "step_viewed welcome", "step_completed welcome", "step_viewed modules", "step_completed modules",
                "step_viewed health-data",
            ],
            deviations: [.conditionViolated]),
        ReplayRow(
            name: "completed without view", flow: ExampleFlows.healthStudy, context: [:],
            recorded: [
                "step_viewed welcome", "step_completed welcome", "step_completed modules", "step_viewed consent",
            ],
            deviations: [.completedWithoutView, .outOfOrder]),
        ReplayRow(
            name: "skipped a required step", flow: ExampleFlows.enterpriseFirstRun, context: [:],
            recorded: ["step_viewed activation", "step_skipped activation", "step_viewed passcode"],
            deviations: [.notSkippable]),
        ReplayRow(
            name: "next viewed without completing the current one", flow: ExampleFlows.enterpriseFirstRun,
            context: [:], recorded: ["step_viewed activation", "step_viewed passcode"],
            deviations: [.missingCompletion]),
        ReplayRow(
            name: "back on the first step", flow: ExampleFlows.boardCreation, context: [:],
            recorded: ["step_viewed board-name", "step_back board-name"], deviations: [.backWithoutHistory]),
        ReplayRow(
            name: "unknown highlight", flow: ExampleFlows.spotlight, context: ["appVersion": "2.10"],
            recorded: ["step_viewed spotlight", "highlight_shown nowhere"], deviations: [.unknownHighlight]),
        ReplayRow(
            name: "step after completion", flow: ExampleFlows.enterpriseRestore, context: [:],
            recorded: [
                "step_viewed unlock", "step_completed unlock", "flow_completed enterprise-restore",
                "step_viewed unlock",
            ],
            deviations: [.afterFinish]),
        ReplayRow(
            name: "premature completion", flow: ExampleFlows.enterpriseFirstRun, context: [:],
            recorded: ["step_viewed activation", "step_completed activation", "flow_completed enterprise-first-run"],
            deviations: [.prematureCompletion]),
        ReplayRow(
            name: "sub-flow entered without hand-off", flow: ExampleFlows.login, context: [:],
            recorded: ["step_viewed credentials", "step_viewed account:profile"], deviations: [.outOfOrder]),
        ReplayRow(
            name: "sub-flow left before it completed", flow: ExampleFlows.login, context: [:],
            recorded: [
                "step_viewed credentials", "step_completed credentials", "step_viewed signed-in",
                "step_completed signed-in", "step_viewed account:profile", "step_viewed ready",
            ],
            deviations: [.outOfOrder]),
        ReplayRow(
            name: "unknown flow", flow: ExampleFlows.login, context: [:],
            recorded: ["step_viewed credentials", "step_viewed billing:plan"], deviations: [.unknownFlow]),
        ReplayRow(
            name: "custom events and feature use are always legal", flow: ExampleFlows.boardCreation, context: [:],
            recorded: [
                "feature_used lists", "step_viewed board-name", "custom tapped", "experiment_exposure exp",
                "step_completed board-name", "step_completed board-name", "step_viewed list-names",
                "step_viewed list-names",
            ],
            deviations: []),
        ReplayRow(
            name: "recovers after a deviation", flow: ExampleFlows.healthStudy,
            context: FlowNavigatorTests.noHealthAuthorized,
            recorded: [
                "step_viewed welcome", "step_completed welcome", "step_viewed consent", "step_completed consent",
                "step_viewed modules", "step_completed modules", "step_viewed consent", "step_completed consent",
                "step_viewed account", "step_completed account", "flow_completed health-study",
            ],
            deviations: [.outOfOrder]),
    ]

    static func parse(_ line: String, flow: FlowDefinition) throws -> EventDraft {
        let parts = line.split(separator: " ").map(String.init)
        let kind = try #require(EventKind(rawValue: parts[0]))
        let target = parts.count > 1 ? parts[1] : ""
        switch kind {
        case .flowCompleted, .flowAbandoned, .sessionStarted: return EventDraft(kind: kind, flowID: target)
        case .featureUsed, .custom, .experimentExposure, .highlightShown, .highlightDismissed:
            return EventDraft(kind: kind, flowID: flow.id, name: target)
        default:
            let pieces = target.split(separator: ":").map(String.init)
            return pieces.count == 2
                ? EventDraft(kind: kind, flowID: pieces[0], stepID: pieces[1])
                : EventDraft(kind: kind, flowID: flow.id, stepID: target)
        }
    }

    @Test(arguments: replayRows)
    func recordedDeviations(row: ReplayRow) throws {
        var navigator = FlowNavigator(flow: row.flow, catalog: FlowNavigatorTests.catalog, context: row.context)
        var kinds: [Deviation.Kind] = []
        for line in row.recorded { kinds += navigator.observe(try Self.parse(line, flow: row.flow)).map(\.kind) }
        #expect(kinds == row.deviations)
    }

    @Test func deviationNamesTheStep() {
        var navigator = FlowNavigator(flow: ExampleFlows.healthStudy, context: FlowNavigatorTests.noHealthAuthorized)
        _ = navigator.observe(EventDraft(kind: .stepViewed, flowID: "health-study", stepID: "welcome"))
        let deviation = navigator.observe(EventDraft(kind: .stepViewed, flowID: "health-study", stepID: "health-data"))
            .first
        #expect(deviation?.stepID == "health-data")
        #expect(deviation?.flowID == "health-study")
        #expect(deviation?.kind == .conditionViolated)
    }
}
