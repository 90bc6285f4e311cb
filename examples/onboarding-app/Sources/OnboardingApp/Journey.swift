import Foundation
import OnboardMetricsSDK

/// The five scenario flows, each driven the way its app drives it.
enum Journey: Int, CaseIterable {
    case healthStudy, boardCreation, spotlight, enterprise, modular

    @MainActor
    func run(user: String, variant: Int, catalog: FlowCatalog, sink: any EventSink) throws {
        func flow(_ id: String) throws -> FlowDefinition {
            guard let flow = catalog[id] else { throw Failure("examples/flows has no flow \(id)") }
            return flow
        }
        switch self {
        case .healthStudy:
            let model = try OnboardingModel(
                flow: flow("health-study"), catalog: catalog, user: user,
                context: [
                    "healthDataAvailable": .bool(variant % 3 != 0), "notificationsAuthorized": .bool(variant % 4 == 0),
                ],
                variants: ["consent-copy": variant % 2 == 0 ? "control" : "short-copy"], sink: sink)
            model.start()  // as the onboarding view's .task would
            try check(model)
            if variant % 5 == 0 {
                model.goTo("consent")  // the code's declared jump
            }
            while let step = model.currentStep {
                if step.id == "consent" {
                    // The consent copy is the experiment's variant: exposed when its step is on screen.
                    model.exposed(to: "consent-copy")
                }
                if step.id == "account" {
                    model.complete()
                } else if model.canSkip, variant % 2 == 1 {
                    model.skip()
                } else {
                    model.next()
                }
                if variant % 7 == 3, step.id == "consent" {
                    model.abandon()
                    break
                }
                try check(model)
            }
        case .boardCreation:
            let model = try OnboardingModel(flow: flow("board-creation"), user: user, sink: sink)
            model.start()  // as the onboarding view's .task would
            try check(model)
            while let step = model.currentStep {
                if let highlight = step.highlights.first {
                    model.highlightShown(highlight.id)
                    model.highlightDismissed(highlight.id, reason: variant % 2 == 0 ? .actionPerformed : .closed)
                }
                if step.id == "create" {
                    model.complete()
                } else if variant % 3 == 0 {
                    model.skip()
                } else {
                    model.next()
                }
                try check(model)
            }
        case .spotlight:
            let model = try OnboardingModel(
                flow: flow("spotlight-share"), user: user, context: ["appVersion": "2.10"], sink: sink)
            model.start()  // as the onboarding view's .task would
            try check(model)
            model.highlightShown("share-button")
            model.highlightDismissed("share-button", reason: variant % 2 == 0 ? .actionPerformed : .closed)
            model.next()
            model.complete()
            try check(model)
            if variant % 2 == 0 { model.featureUsed("share") }
        case .enterprise:
            let returning = variant % 2 == 1
            let model = try OnboardingModel(
                flow: flow(returning ? "enterprise-restore" : "enterprise-first-run"), user: user,
                context: [
                    "biometricsAvailable": .bool(variant % 3 == 0), "platform": "ios", "backupAvailable": true,
                    "consentVersion": "2.0",
                ], sink: sink)
            model.start()  // as the onboarding view's .task would
            try check(model)
            while model.currentStep != nil {
                model.next()
                try check(model)
            }
        case .modular:
            let model = try OnboardingModel(
                flow: flow("login"), catalog: catalog, user: user,
                context: ["mfaEnabled": .bool(variant % 2 == 0), "notificationsAuthorized": false], sink: sink)
            model.start()  // as the onboarding view's .task would
            try check(model)
            while let step = model.currentStep {
                if model.canSkip, variant % 3 == 0 { model.skip() } else { model.next() }
                if step.id == "ready" { break }
                try check(model)
            }
        }
    }

    @MainActor
    private func check(_ model: OnboardingModel) throws {
        if let error = model.lastError { throw Failure("\(self): \(error)") }
    }
}
