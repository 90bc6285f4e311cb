// Apple-only and not compiled on Linux, where this package is built and tested: thin wrappers
// over OnboardingModel, whose behaviour the Linux tests cover.
#if canImport(SwiftUI) && canImport(Observation)
    import SwiftUI

    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
    extension View {
        /// Starts `model`'s onboarding when this view is first on screen (safe under SwiftUI's
        /// re-initialisation: creating the model records nothing; ``OnboardingModel/start()`` does,
        /// once).
        public func onboarding(_ model: OnboardingModel) -> some View {
            task { model.start() }
        }

        /// Records highlight `highlightID` as shown when this view appears; dismiss it with
        /// ``OnboardingModel/highlightDismissed(_:reason:)`` from the highlight's close action.
        public func onboardingHighlight(_ highlightID: String, in model: OnboardingModel) -> some View {
            onAppear { model.highlightShown(highlightID) }
        }
    }
#endif
