#if canImport(Observation)
    import Foundation
    import Observation

    /// The onboarding as a SwiftUI view sees it: the step on screen, whether it can be skipped or
    /// left backwards, the progress, and whether the flow completed — observable, so views that
    /// read a property redraw when a move changes it.
    ///
    /// The model drives an ``OnboardingSession``: each method makes the move, which records its
    /// events through the session's sink (returning at once: recording never waits for the disk or
    /// the network), then publishes the new position. A move the flow does not allow (skipping a
    /// step that is not skippable, say) records nothing, leaves the position as it was, and is kept
    /// in ``lastError`` for the view to show; the methods never throw, so a button's action can
    /// call them directly.
    ///
    /// Creating the model records nothing: SwiftUI may evaluate a `@State` initializer on every
    /// init of the view and keep only the first model, so the session starts in ``start()``,
    /// called from `.task` (or `onAppear`) once the onboarding is on screen. Only a started model
    /// records.
    ///
    /// ```swift
    /// @State private var onboarding = OnboardingModel(
    ///     flow: flow, user: userID, context: ["platform": "ios"], sink: transport)
    ///
    /// var body: some View {
    ///     VStack {
    ///         if let step = onboarding.currentStep {
    ///             StepView(step: step)
    ///             ProgressView(value: onboarding.progress.fraction)
    ///             Button("Continue") { onboarding.next() }
    ///             if onboarding.canSkip { Button("Skip") { onboarding.skip() } }
    ///         }
    ///     }
    ///     .task { onboarding.start() }
    /// }
    /// ```
    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
    @MainActor
    @Observable
    public final class OnboardingModel {
        /// The session the model drives (its ids, variants, and the moves not mirrored here);
        /// `nil` until ``start()``.
        public private(set) var session: OnboardingSession?
        /// The step on screen; `nil` once the flow finished.
        public private(set) var currentStep: Step?
        /// Running, completed or abandoned.
        public private(set) var status: FlowNavigator.Status
        /// Whether ``skip()`` is allowed now.
        public private(set) var canSkip: Bool
        /// Whether ``back()`` is allowed now.
        public private(set) var canGoBack: Bool
        /// How far the user is through the flow on screen.
        public private(set) var progress: FlowNavigator.Progress
        /// The last move that was refused, and why; cleared by the next move that succeeds.
        public private(set) var lastError: (any Error)?

        /// Whether the user finished the flow.
        public var isCompleted: Bool { status == .completed }

        /// What ``start()`` starts, for a model made before its session.
        private let pending: (@Sendable () throws -> OnboardingSession)?

        /// A model over a session the app started itself.
        public init(session: OnboardingSession) {
            self.session = session
            pending = nil
            let navigator = session.navigatorSnapshot
            currentStep = navigator.isFinished ? nil : navigator.currentStep
            status = navigator.status
            canSkip = navigator.canSkip
            canGoBack = navigator.canGoBack
            progress = navigator.progress
        }

        /// A model whose session ``start()`` starts (see
        /// ``OnboardingSession/start(flow:catalog:user:context:variants:exposure:sink:clock:random:)``).
        /// Nothing is recorded until then: ``status`` is `notStarted` and ``currentStep`` `nil`.
        public init(
            flow: FlowDefinition, catalog: FlowCatalog? = nil, user: String, context: [String: JSONValue] = [:],
            variants: [String: String] = [:], exposure: ExposureTiming = .whenSeen, sink: any EventSink
        ) {
            pending = {
                try OnboardingSession.start(
                    flow: flow, catalog: catalog, user: user, context: context, variants: variants,
                    exposure: exposure, sink: sink)
            }
            let navigator = FlowNavigator(flow: flow, catalog: catalog, context: context)
            currentStep = nil
            status = navigator.status
            canSkip = false
            canGoBack = false
            progress = navigator.progress
        }

        /// A model whose ``start()`` starts flow `flowID` through `store` — or resumes the session
        /// a previous launch left, on the step it was on, recording nothing (see
        /// ``SessionStore/start(flow:context:variants:exposure:)``). The user is the store's.
        public init(
            flow flowID: String, store: SessionStore, context: [String: JSONValue] = [:],
            variants: [String: String] = [:], exposure: ExposureTiming = .whenSeen
        ) {
            pending = { try store.start(flow: flowID, context: context, variants: variants, exposure: exposure) }
            currentStep = nil
            status = .notStarted
            canSkip = false
            canGoBack = false
            progress =
                store.flows[flowID].map { FlowNavigator(flow: $0, context: context).progress }
                ?? FlowNavigator.Progress(total: 0, done: 0)
        }

        /// Starts the session: records `session_started` and the first step's view (or, through a
        /// ``SessionStore``, resumes a saved session without recording). Once only:
        /// later calls (a view appearing again) record nothing. A flow that cannot start leaves
        /// the model unstarted with the reason in ``lastError``.
        public func start() {
            guard session == nil, let pending else { return }
            do {
                session = try pending()
                lastError = nil
            } catch {
                lastError = error
            }
            publish()
        }

        /// Records that the user now sees this session's variant of `experimentKey` (once per
        /// session; see ``OnboardingSession/exposed(to:)``).
        public func exposed(to experimentKey: String) { perform { try $0.exposed(to: experimentKey) } }

        /// Completes the step on screen and shows the next one that applies.
        public func next() { perform { try $0.next() } }
        /// Skips the step on screen, when ``canSkip``.
        public func skip() { perform { try $0.skip() } }
        /// Returns to the previous step, when ``canGoBack``.
        public func back() { perform { try $0.back() } }
        /// Completes the step on screen and jumps to a step the flow declares as a jump target.
        public func goTo(_ stepID: String) { perform { try $0.goTo(stepID) } }
        /// Completes the last step, finishing the flow.
        public func complete() { perform { try $0.complete() } }
        /// The user left onboarding at the step on screen.
        public func abandon() { perform { try $0.abandon() } }
        /// A spotlight highlight of the step was shown.
        public func highlightShown(_ highlightID: String) { perform { try $0.highlightShown(highlightID) } }
        /// A highlight was dismissed, with TipKit's reason.
        public func highlightDismissed(_ highlightID: String, reason: DismissReason) {
            perform { try $0.highlightDismissed(highlightID, reason: reason) }
        }
        /// The user used a feature.
        public func featureUsed(_ featureID: String, properties: [String: JSONValue] = [:]) {
            perform { try $0.featureUsed(featureID, properties: properties) }
        }

        private func perform(_ move: (OnboardingSession) throws -> Void) {
            guard let session else {
                lastError = FlowError(.notRunning, "the onboarding has not started: call start() first")
                return
            }
            do {
                try move(session)
                lastError = nil
            } catch {
                lastError = error
            }
            publish()
        }

        /// Mirrors the session's position into the observed properties (only what changed, so
        /// views redraw only for what they read).
        private func publish() {
            guard let navigator = session?.navigatorSnapshot else { return }
            let step = navigator.isFinished ? nil : navigator.currentStep
            if currentStep != step { currentStep = step }
            if status != navigator.status { status = navigator.status }
            if canSkip != navigator.canSkip { canSkip = navigator.canSkip }
            if canGoBack != navigator.canGoBack { canGoBack = navigator.canGoBack }
            if progress != navigator.progress { progress = navigator.progress }
        }
    }
#endif
