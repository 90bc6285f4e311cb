import Testing

@testable import OnboardMetricsGeneration
@testable import OnboardMetricsSDK

@Suite struct FlowNavigatorTests {
    enum Move: Sendable, CustomStringConvertible {
        case start, next, skip, back, abandon
        case goTo(String)
        case custom(String)
        case highlight(String)
        case dismiss(String, DismissReason)

        var description: String {
            switch self {
            case .start: "start"
            case .next: "next"
            case .skip: "skip"
            case .back: "back"
            case .abandon: "abandon"
            case .goTo(let step): "goTo(\(step))"
            case .custom(let name): "custom(\(name))"
            case .highlight(let id): "highlight(\(id))"
            case .dismiss(let id, let reason): "dismiss(\(id), \(reason))"
            }
        }
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var flow: FlowDefinition
        var context: [String: JSONValue]
        var moves: [Move]
        /// The events of all moves, as `kind step` (`kind flow` for flow events, `kind name` for
        /// named events), in order.
        var events: [String]
        var testDescription: String { name }
    }

    static let catalog: FlowCatalog? = try? FlowCatalog(ExampleFlows.all)

    static func perform(_ move: Move, on navigator: inout FlowNavigator) throws(FlowError) -> [EventDraft] {
        switch move {
        case .start: try navigator.start()
        case .next: try navigator.next()
        case .skip: try navigator.skip()
        case .back: try navigator.back()
        case .abandon: try navigator.abandon()
        case .goTo(let step): try navigator.goTo(step)
        case .custom(let name): try navigator.showCustom(name)
        case .highlight(let id): try navigator.showHighlight(id)
        case .dismiss(let id, let reason): try navigator.dismissHighlight(id, reason: reason)
        }
    }

    static func render(_ event: EventDraft) -> String {
        switch event.kind {
        case .sessionStarted, .flowCompleted: "\(event.kind.rawValue) \(event.flowID ?? "-")"
        case .custom, .highlightShown, .highlightDismissed, .featureUsed, .experimentExposure:
            "\(event.kind.rawValue) \(event.name ?? "-")"
        default: "\(event.kind.rawValue) \(event.flowID == "account" ? "account:" : "")\(event.stepID ?? "-")"
        }
    }

    static let noHealthAuthorized: [String: JSONValue] = [
        "healthDataAvailable": false, "notificationsAuthorized": true,
    ]
    static let healthUnauthorized: [String: JSONValue] = [
        "healthDataAvailable": true, "notificationsAuthorized": false,
    ]

    static let rows: [Row] = [
        Row(
            name: "health study, both conditional steps off", flow: ExampleFlows.healthStudy,
            context: noHealthAuthorized, moves: [.start, .next, .next, .next, .next],
            events: [
                "session_started health-study", "step_viewed welcome", "step_completed welcome", "step_viewed modules",
                "step_completed modules", "step_viewed consent", "step_completed consent", "step_viewed account",
                "step_completed account", "flow_completed health-study",
            ]),
        Row(
            name: "health study, both conditional steps on, one skipped", flow: ExampleFlows.healthStudy,
            context: healthUnauthorized, moves: [.start, .next, .next, .skip, .next, .next, .next],
            events: [
                "session_started health-study", "step_viewed welcome", "step_completed welcome", "step_viewed modules",
                "step_completed modules", "step_viewed health-data", "step_skipped health-data",
                "step_viewed notifications", "step_completed notifications", "step_viewed consent",
                "step_completed consent", "step_viewed account", "step_completed account",
                "flow_completed health-study",
            ]),
        Row(
            name: "health study, jump to consent then declared order", flow: ExampleFlows.healthStudy,
            context: healthUnauthorized, moves: [.start, .goTo("consent"), .next, .next],
            events: [
                "session_started health-study", "step_viewed welcome", "step_completed welcome", "step_viewed consent",
                "step_completed consent", "step_viewed account", "step_completed account",
                "flow_completed health-study",
            ]),
        Row(
            name: "health study, custom screen keeps position, back returns", flow: ExampleFlows.healthStudy,
            context: noHealthAuthorized, moves: [.start, .next, .custom("study-info"), .back, .next, .next],
            events: [
                "session_started health-study", "step_viewed welcome", "step_completed welcome", "step_viewed modules",
                "custom study-info", "step_back modules", "step_viewed welcome", "step_completed welcome",
                "step_viewed modules", "step_completed modules", "step_viewed consent",
            ]),
        Row(
            name: "health study, back across a skipped conditional step", flow: ExampleFlows.healthStudy,
            context: healthUnauthorized, moves: [.start, .next, .next, .skip, .back, .back],
            events: [
                "session_started health-study", "step_viewed welcome", "step_completed welcome", "step_viewed modules",
                "step_completed modules", "step_viewed health-data", "step_skipped health-data",
                "step_viewed notifications", "step_back notifications", "step_viewed health-data",
                "step_back health-data", "step_viewed modules",
            ]),
        Row(
            name: "health study, abandoned", flow: ExampleFlows.healthStudy, context: [:],
            moves: [.start, .next, .abandon],
            events: [
                "session_started health-study", "step_viewed welcome", "step_completed welcome", "step_viewed modules",
                "flow_abandoned modules",
            ]),
        Row(
            name: "board creation, all overlays skipped", flow: ExampleFlows.boardCreation, context: [:],
            moves: [
                .start, .highlight("board-name-field"), .dismiss("board-name-field", .closed), .skip, .skip, .skip,
                .next,
            ],
            events: [
                "session_started board-creation", "step_viewed board-name", "highlight_shown board-name-field",
                "highlight_dismissed board-name-field", "step_skipped board-name", "step_viewed list-names",
                "step_skipped list-names", "step_viewed card-names", "step_skipped card-names", "step_viewed create",
                "step_completed create", "flow_completed board-creation",
            ]),
        Row(
            name: "spotlight, new app version", flow: ExampleFlows.spotlight, context: ["appVersion": "2.10.1"],
            moves: [
                .start, .highlight("share-button"), .highlight("export-button"),
                .dismiss("share-button", .actionPerformed), .next, .skip,
            ],
            events: [
                "session_started spotlight-share", "step_viewed spotlight", "highlight_shown share-button",
                "highlight_shown export-button", "highlight_dismissed share-button", "step_completed spotlight",
                "step_viewed explain-sheet", "step_skipped explain-sheet", "flow_completed spotlight-share",
            ]),
        Row(
            name: "spotlight, old app version: nothing to show", flow: ExampleFlows.spotlight,
            context: ["appVersion": "2.9"], moves: [.start],
            events: ["session_started spotlight-share", "flow_completed spotlight-share"]),
        Row(
            name: "enterprise first run, biometrics on ios", flow: ExampleFlows.enterpriseFirstRun,
            context: ["platform": "ios", "biometricsAvailable": true], moves: [.start, .next, .next, .skip, .next],
            events: [
                "session_started enterprise-first-run", "step_viewed activation", "step_completed activation",
                "step_viewed passcode", "step_completed passcode", "step_viewed biometrics", "step_skipped biometrics",
                "step_viewed consent", "step_completed consent", "flow_completed enterprise-first-run",
            ]),
        Row(
            name: "enterprise first run, no biometrics on web", flow: ExampleFlows.enterpriseFirstRun,
            context: ["platform": "web", "biometricsAvailable": true], moves: [.start, .next, .next, .next],
            events: [
                "session_started enterprise-first-run", "step_viewed activation", "step_completed activation",
                "step_viewed passcode", "step_completed passcode", "step_viewed consent", "step_completed consent",
                "flow_completed enterprise-first-run",
            ]),
        Row(
            name: "enterprise restore, backup and old consent", flow: ExampleFlows.enterpriseRestore,
            context: ["backupAvailable": true, "consentVersion": "2.4"], moves: [.start, .next, .next, .next],
            events: [
                "session_started enterprise-restore", "step_viewed unlock", "step_completed unlock", "step_viewed sync",
                "step_completed sync", "step_viewed consent-update", "step_completed consent-update",
                "flow_completed enterprise-restore",
            ]),
        Row(
            name: "enterprise restore, unlock only", flow: ExampleFlows.enterpriseRestore,
            context: ["consentVersion": "3.0"], moves: [.start, .next],
            events: [
                "session_started enterprise-restore", "step_viewed unlock", "step_completed unlock",
                "flow_completed enterprise-restore",
            ]),
        Row(
            name: "login hands off to account and returns", flow: ExampleFlows.login,
            context: ["mfaEnabled": true, "notificationsAuthorized": false],
            moves: [.start, .next, .next, .next, .next, .skip, .back, .next, .next, .next],
            events: [
                "session_started login", "step_viewed credentials", "step_completed credentials",
                "step_viewed two-factor", "step_completed two-factor", "step_viewed signed-in",
                "step_completed signed-in", "step_viewed account:profile", "step_completed account:profile",
                "step_viewed account:preferences", "step_skipped account:preferences",
                "step_viewed account:notifications", "step_back account:notifications",
                "step_viewed account:preferences", "step_completed account:preferences",
                "step_viewed account:notifications", "step_completed account:notifications", "flow_completed account",
                "step_viewed ready", "step_completed ready", "flow_completed login",
            ]),
        Row(
            name: "login without mfa, account without notifications", flow: ExampleFlows.login,
            context: ["notificationsAuthorized": true], moves: [.start, .next, .next, .next, .next, .next],
            events: [
                "session_started login", "step_viewed credentials", "step_completed credentials",
                "step_viewed signed-in", "step_completed signed-in", "step_viewed account:profile",
                "step_completed account:profile", "step_viewed account:preferences",
                "step_completed account:preferences", "flow_completed account", "step_viewed ready",
                "step_completed ready", "flow_completed login",
            ]),
    ]

    @Test(arguments: rows)
    func liveMoves(row: Row) throws {
        var navigator = FlowNavigator(flow: row.flow, catalog: Self.catalog, context: row.context)
        var events: [EventDraft] = []
        for move in row.moves { events += try Self.perform(move, on: &navigator) }
        #expect(events.map(Self.render) == row.events)
        let completed = row.events.last == "flow_completed \(row.flow.id)"
        #expect(navigator.isFinished == (completed || row.events.last?.hasPrefix("flow_abandoned") == true))

        // The same events replayed through a fresh navigator are a legal run.
        var replay = FlowNavigator(flow: row.flow, catalog: Self.catalog, context: row.context)
        let deviations = events.flatMap { replay.observe($0) }
        #expect(deviations.isEmpty, "\(deviations)")
        #expect(replay.status == navigator.status)
        #expect(replay.currentStep == navigator.currentStep)
        #expect(replay.flowStack == navigator.flowStack)
    }

    struct IllegalRow: Sendable, CustomTestStringConvertible {
        var name: String
        var flow: FlowDefinition
        var moves: [Move]
        var illegal: Move
        var code: FlowError.Code
        var testDescription: String { name }
    }

    static let illegalRows: [IllegalRow] = [
        IllegalRow(
            name: "next before start", flow: ExampleFlows.healthStudy, moves: [], illegal: .next, code: .notRunning),
        IllegalRow(
            name: "start twice", flow: ExampleFlows.healthStudy, moves: [.start], illegal: .start,
            code: .alreadyStarted),
        IllegalRow(
            name: "skip a required step", flow: ExampleFlows.healthStudy, moves: [.start], illegal: .skip,
            code: .notSkippable),
        IllegalRow(
            name: "goTo an undeclared step", flow: ExampleFlows.healthStudy, moves: [.start],
            illegal: .goTo("checkout"), code: .unknownStep),
        IllegalRow(
            name: "back on the first step", flow: ExampleFlows.healthStudy, moves: [.start], illegal: .back,
            code: .noHistory),
        IllegalRow(
            name: "next after completion", flow: ExampleFlows.enterpriseRestore, moves: [.start, .next],
            illegal: .next, code: .notRunning),
        IllegalRow(
            name: "skip after abandon", flow: ExampleFlows.boardCreation, moves: [.start, .abandon], illegal: .skip,
            code: .notRunning),
        IllegalRow(
            name: "undeclared highlight", flow: ExampleFlows.spotlight, moves: [.start],
            illegal: .highlight("settings-button"), code: .unknownHighlight),
        IllegalRow(
            name: "back into the parent flow from a sub-flow's first step", flow: ExampleFlows.login,
            moves: [.start, .next, .next], illegal: .back, code: .noHistory),
        IllegalRow(
            name: "custom screen before start", flow: ExampleFlows.login, moves: [], illegal: .custom("help"),
            code: .notRunning),
    ]

    @Test(arguments: illegalRows)
    func illegalMoves(row: IllegalRow) throws {
        let context: [String: JSONValue] = ["appVersion": "3.0", "notificationsAuthorized": true]
        var navigator = FlowNavigator(flow: row.flow, catalog: Self.catalog, context: context)
        for move in row.moves { _ = try Self.perform(move, on: &navigator) }
        let before = navigator
        do {
            _ = try Self.perform(row.illegal, on: &navigator)
            Issue.record("\(row.illegal) should have failed")
        } catch {
            #expect(error.code == row.code, "\(error)")
        }
        #expect(navigator.status == before.status)
        #expect(navigator.currentStep == before.currentStep)
    }

    @Test func handOffToAFlowMissingFromTheCatalog() throws {
        var navigator = FlowNavigator(flow: ExampleFlows.login, context: ["mfaEnabled": false])
        _ = try navigator.start()
        _ = try navigator.next()
        #expect(throws: FlowError.self) { try navigator.next() }
        #expect(navigator.currentStep?.id == "signed-in")
    }

    @Test func eventsCarryFlowVersionAndProperties() throws {
        var navigator = FlowNavigator(flow: ExampleFlows.spotlight, context: ["appVersion": "2.10"])
        let start = try navigator.start()
        #expect(start.first?.properties["context"] == .object(["appVersion": "2.10"]))
        #expect(start.allSatisfy { $0.flowVersion == 1 })
        let dismissed = try navigator.dismissHighlight("share-button", reason: .displayDurationExceeded)
        #expect(dismissed.first?.properties["reason"] == "displayDurationExceeded")
        #expect(dismissed.first?.properties["feature"] == "share")
        #expect(navigator.exposure(experiment: "sheet-copy", variant: "b").first?.properties["variant"] == "b")
        #expect(navigator.featureUsed("share").first?.name == "share")
    }
}
