import OnboardMetricsSDK

/// The flows of the scenarios in DESIGN.md, built with the DSL. examples/flows/*.json hold the
/// same flows as JSON (a test checks they decode to equal values).
public enum ExampleFlows {
    /// Scenario 1: health-study onboarding with conditional steps and a declared jump.
    public static let healthStudy = FlowDefinition(id: "health-study", version: 1, title: "Health study onboarding") {
        Step("welcome", jumps: ["consent"])
        Step("modules")
        Step("health-data", when: "healthDataAvailable", skippable: true)
        Step("notifications", when: "!notificationsAuthorized", skippable: true)
        Step("consent")
        Step("account")
    }

    /// Scenario 2: assisted board creation, one skippable guided overlay per part.
    public static let boardCreation = FlowDefinition(
        id: "board-creation", version: 1, title: "Assisted board creation"
    ) {
        Step("board-name", skippable: true, highlights: [Highlight("board-name-field", feature: "board-naming")])
        Step("list-names", skippable: true, highlights: [Highlight("add-list-button", feature: "lists")])
        Step("card-names", skippable: true, highlights: [Highlight("add-card-button", feature: "cards")])
        Step("create")
    }

    /// Scenario 3: a spotlight on a new feature, shown from app version 2.10 on.
    public static let spotlight = FlowDefinition(id: "spotlight-share", version: 1, title: "Spotlight on sharing") {
        Step(
            "spotlight", when: "appVersion >= \"2.10\"", skippable: true,
            highlights: [
                Highlight("share-button", feature: "share", title: "Share a board with your team"),
                Highlight("export-button", feature: "export", title: "Export as PDF"),
            ])
        Step("explain-sheet", when: "appVersion >= \"2.10\"", skippable: true)
    }

    /// Scenario 4a: enterprise first run.
    public static let enterpriseFirstRun = FlowDefinition(
        id: "enterprise-first-run", version: 1, title: "Enterprise first run"
    ) {
        Step("activation")
        Step("passcode")
        Step("biometrics", when: "biometricsAvailable && platform in [\"ios\", \"android\"]", skippable: true)
        Step("consent")
    }

    /// Scenario 4b: enterprise restore for a returning user.
    public static let enterpriseRestore = FlowDefinition(
        id: "enterprise-restore", version: 1, title: "Enterprise restore"
    ) {
        Step("unlock")
        Step("sync", when: "backupAvailable")
        Step("consent-update", when: "consentVersion < \"3.0\"")
    }

    /// Scenario 5a: login, handing off to the account flow.
    public static let login = FlowDefinition(id: "login", version: 1, title: "Modular login") {
        Step("credentials")
        Step("two-factor", when: "mfaEnabled")
        Step("signed-in", handOff: "account")
        Step("ready")
    }

    /// Scenario 5b: the account flow that login hands off to.
    public static let account = FlowDefinition(id: "account", version: 1, title: "Account setup") {
        Step("profile", skippable: true)
        Step("preferences", skippable: true)
        Step("notifications", when: "!notificationsAuthorized", skippable: true)
    }

    /// Every example flow.
    public static let all: [FlowDefinition] = [
        healthStudy, boardCreation, spotlight, enterpriseFirstRun, enterpriseRestore, login, account,
    ]
}
