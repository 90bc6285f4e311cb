import OnboardMetricsSDK

/// A named synthetic-data scenario: the flows of one DESIGN.md scenario and a behaviour model.
public struct Scenario: Sendable, Hashable {
    /// The name used by `funnel generate --scenario`.
    public var name: String
    /// The flows sessions run (roots and sub-flows).
    public var flows: [FlowDefinition]
    /// The behaviour model.
    public var model: BehaviourModel

    /// Creates a scenario.
    public init(name: String, flows: [FlowDefinition], model: BehaviourModel) {
        self.name = name
        self.flows = flows
        self.model = model
    }

    /// Every built-in scenario.
    public static let all: [Scenario] = [healthStudy, boardCreation, spotlight, enterprise, modularLogin]

    /// The built-in scenario called `name`.
    public static func named(_ name: String) -> Scenario? {
        all.first { $0.name == name }
    }

    static let timing = BehaviourModel.Timing(
        start: "2026-01-05T00:00:00.000Z", days: 28, inProgressShare: 0.02, inProgressMinutes: 20)
    static let faults = BehaviourModel.Faults(duplicate: 0.002, late: 0.003, outOfOrder: 0.01, clockSkew: 0.02)
    static let platform = BehaviourModel.Attribute(
        "platform", values: ["ios", "android", "web"], weights: [0.55, 0.35, 0.10])
    static let appVersion = BehaviourModel.Attribute(
        "appVersion", values: ["2.8.3", "2.9.1", "2.10.0", "2.11.2"], weights: [0.1, 0.2, 0.3, 0.4])

    /// Scenario 1: health-study onboarding; Android drops more on the health-data step; an
    /// experiment on the consent copy lowers drop-out there.
    public static let healthStudy = Scenario(
        name: "health-study", flows: [ExampleFlows.healthStudy],
        model: BehaviourModel(
            entries: [BehaviourModel.Entry(flow: "health-study")],
            context: [
                platform, appVersion,
                BehaviourModel.Attribute("healthDataAvailable", values: [true, false], weights: [0.6, 0.4]),
                BehaviourModel.Attribute("notificationsAuthorized", values: [true, false], weights: [0.3, 0.7]),
            ],
            steps: [
                .init(
                    flow: "health-study", step: "welcome", drop: 0.08, medianSeconds: 6, jumps: ["consent": 0.05]),
                .init(
                    flow: "health-study", step: "modules", drop: 0.06, back: 0.04, medianSeconds: 20,
                    customScreen: 0.1),
                .init(
                    flow: "health-study", step: "health-data", drop: 0.05, skip: 0.25, back: 0.03, medianSeconds: 12,
                    rules: [.init(when: "platform == \"android\"", drop: 0.10, skip: 0.35)]),
                .init(flow: "health-study", step: "notifications", drop: 0.03, skip: 0.40, medianSeconds: 5),
                .init(flow: "health-study", step: "consent", drop: 0.12, back: 0.05, medianSeconds: 45, sigma: 0.8),
                .init(
                    flow: "health-study", step: "account", drop: 0.07, medianSeconds: 30,
                    rules: [.init(when: "platform == \"web\"", drop: 0.15)]),
            ],
            defaultStep: .init(flow: "*", step: "*", drop: 0.05),
            experiment: .init(
                key: "consent-copy", flow: "health-study", step: "consent", variants: ["control", "short-copy"],
                weights: [0.5, 0.5], dropDelta: [0, -0.04]),
            timing: timing, faults: faults, repeatUser: 0.1, abandonEvent: 0.3))

    /// Scenario 2: assisted board creation with skippable overlays and later free use of the parts.
    public static let boardCreation = Scenario(
        name: "board-creation", flows: [ExampleFlows.boardCreation],
        model: BehaviourModel(
            entries: [BehaviourModel.Entry(flow: "board-creation")],
            context: [platform],
            steps: [
                .init(flow: "board-creation", step: "board-name", drop: 0.05, skip: 0.15, medianSeconds: 10),
                .init(
                    flow: "board-creation", step: "list-names", drop: 0.07, skip: 0.25, back: 0.03, medianSeconds: 25),
                .init(
                    flow: "board-creation", step: "card-names", drop: 0.08, skip: 0.30, back: 0.03, medianSeconds: 30,
                    rules: [.init(when: "platform == \"web\"", skip: 0.45)]),
                .init(flow: "board-creation", step: "create", drop: 0.04, medianSeconds: 4),
            ],
            defaultStep: .init(flow: "*", step: "*", drop: 0.05),
            highlights: [
                .init(
                    highlight: "add-list-button", feature: "lists", show: 1,
                    reasons: ["actionPerformed": 0.6, "closed": 0.3, "displayDurationExceeded": 0.1],
                    useAfter: ["actionPerformed": 0.8, "closed": 0.4, "displayDurationExceeded": 0.3], alreadyKnew: 0.1,
                    organic: 0.2, medianHoursToUse: 6),
                .init(
                    highlight: "add-card-button", feature: "cards", show: 1,
                    reasons: ["actionPerformed": 0.5, "closed": 0.4, "displayDurationExceeded": 0.1],
                    useAfter: ["actionPerformed": 0.7, "closed": 0.35, "displayDurationExceeded": 0.25],
                    alreadyKnew: 0.08, organic: 0.15, medianHoursToUse: 8),
            ],
            timing: timing, faults: faults, repeatUser: 0.15, abandonEvent: 0.2))

    /// Scenario 3: spotlight on sharing (shown from app version 2.10); older versions are the
    /// organic baseline; an experiment on the sheet lowers drop-out on the spotlight step.
    public static let spotlight = Scenario(
        name: "spotlight", flows: [ExampleFlows.spotlight],
        model: BehaviourModel(
            entries: [BehaviourModel.Entry(flow: "spotlight-share")],
            context: [platform, appVersion],
            steps: [
                .init(flow: "spotlight-share", step: "spotlight", drop: 0.10, skip: 0.20, medianSeconds: 5),
                .init(flow: "spotlight-share", step: "explain-sheet", drop: 0.05, skip: 0.30, medianSeconds: 9),
            ],
            defaultStep: .init(flow: "*", step: "*", drop: 0.05),
            highlights: [
                .init(
                    highlight: "share-button", feature: "share", show: 0.95,
                    reasons: [
                        "actionPerformed": 0.35, "closed": 0.45, "displayCountExceeded": 0.05,
                        "displayDurationExceeded": 0.15,
                    ],
                    useAfter: [
                        "actionPerformed": 0.9, "closed": 0.25, "displayCountExceeded": 0.2,
                        "displayDurationExceeded": 0.2,
                    ], alreadyKnew: 0.05, organic: 0.12, medianHoursToUse: 20),
                .init(
                    highlight: "export-button", feature: "export", show: 0.6,
                    reasons: ["actionPerformed": 0.2, "closed": 0.6, "displayDurationExceeded": 0.2],
                    useAfter: ["actionPerformed": 0.85, "closed": 0.15, "displayDurationExceeded": 0.1],
                    alreadyKnew: 0.03, organic: 0.06, medianHoursToUse: 30),
            ],
            experiment: .init(
                key: "sheet-style", flow: "spotlight-share", step: "spotlight", variants: ["control", "compact"],
                weights: [0.5, 0.5], dropDelta: [0, -0.03]),
            timing: timing, faults: faults, repeatUser: 0.3, abandonEvent: 0.5))

    /// Scenario 4: enterprise first run (70 %) and restore for returning users (30 %).
    public static let enterprise = Scenario(
        name: "enterprise", flows: [ExampleFlows.enterpriseFirstRun, ExampleFlows.enterpriseRestore],
        model: BehaviourModel(
            entries: [
                BehaviourModel.Entry(flow: "enterprise-first-run", weight: 0.7),
                BehaviourModel.Entry(flow: "enterprise-restore", weight: 0.3),
            ],
            context: [
                platform,
                BehaviourModel.Attribute("biometricsAvailable", values: [true, false], weights: [0.8, 0.2]),
                BehaviourModel.Attribute("backupAvailable", values: [true, false], weights: [0.7, 0.3]),
                BehaviourModel.Attribute("consentVersion", values: ["2.4", "3.0", "3.1"], weights: [0.3, 0.5, 0.2]),
            ],
            steps: [
                .init(flow: "enterprise-first-run", step: "activation", drop: 0.10, medianSeconds: 40, sigma: 0.9),
                .init(flow: "enterprise-first-run", step: "passcode", drop: 0.04, back: 0.03, medianSeconds: 15),
                .init(flow: "enterprise-first-run", step: "biometrics", drop: 0.02, skip: 0.3, medianSeconds: 6),
                .init(flow: "enterprise-first-run", step: "consent", drop: 0.03, medianSeconds: 25),
                .init(
                    flow: "enterprise-restore", step: "unlock", drop: 0.06, medianSeconds: 8,
                    rules: [.init(when: "platform == \"web\"", drop: 0.12)]),
                .init(flow: "enterprise-restore", step: "sync", drop: 0.02, medianSeconds: 30),
                .init(flow: "enterprise-restore", step: "consent-update", drop: 0.05, medianSeconds: 20),
            ],
            defaultStep: .init(flow: "*", step: "*", drop: 0.05),
            timing: timing, faults: faults, repeatUser: 0.2, abandonEvent: 0.4))

    /// Scenario 5: login handing off to the account flow.
    public static let modularLogin = Scenario(
        name: "modular-login", flows: [ExampleFlows.login, ExampleFlows.account],
        model: BehaviourModel(
            entries: [BehaviourModel.Entry(flow: "login")],
            context: [
                platform,
                BehaviourModel.Attribute("mfaEnabled", values: [true, false], weights: [0.4, 0.6]),
                BehaviourModel.Attribute("notificationsAuthorized", values: [true, false], weights: [0.5, 0.5]),
            ],
            steps: [
                .init(flow: "login", step: "credentials", drop: 0.08, medianSeconds: 15),
                .init(flow: "login", step: "two-factor", drop: 0.06, medianSeconds: 25),
                .init(flow: "login", step: "signed-in", drop: 0.01, medianSeconds: 2),
                .init(flow: "login", step: "ready", drop: 0.01, medianSeconds: 3),
                .init(flow: "account", step: "profile", drop: 0.04, skip: 0.35, medianSeconds: 20),
                .init(flow: "account", step: "preferences", drop: 0.03, skip: 0.5, back: 0.04, medianSeconds: 10),
                .init(flow: "account", step: "notifications", drop: 0.02, skip: 0.45, medianSeconds: 5),
            ],
            defaultStep: .init(flow: "*", step: "*", drop: 0.05),
            timing: timing, faults: faults, repeatUser: 0.25, abandonEvent: 0.3))
}
