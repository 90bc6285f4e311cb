// Apple-only and not compiled on Linux, where this package is built and tested: kept thin, and
// every decision it takes is in DismissReason(tipKitReasonName:), which the Linux tests cover.
#if canImport(TipKit)
    import TipKit

    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
    extension DismissReason {
        /// The reason for a TipKit invalidation; `nil` for one TipKit adds later.
        public init?(_ reason: Tips.InvalidationReason) {
            switch reason {
            case .actionPerformed: self.init(tipKitReasonName: "actionPerformed")
            case .tipClosed: self.init(tipKitReasonName: "tipClosed")
            case .displayCountExceeded: self.init(tipKitReasonName: "displayCountExceeded")
            case .displayDurationExceeded: self.init(tipKitReasonName: "displayDurationExceeded")
            @unknown default: return nil
            }
        }
    }

    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
    extension SessionStore {
        /// Records a TipKit tip as highlight `highlightID` of flow `flowID`: `highlight_shown` the
        /// first time TipKit says it should display, and `highlight_dismissed` with TipKit's
        /// reason when it is invalidated. Runs until the tip is invalidated or the task is
        /// cancelled: call it from `.task` beside the tip's view.
        public func track(_ tip: some Tip, as highlightID: String, flow flowID: String) async {
            for await status in tip.statusUpdates {
                guard case .invalidated(let reason) = status else {
                    if tip.shouldDisplay { try? highlightShown(highlightID, flow: flowID) }
                    continue
                }
                if let reason = DismissReason(reason) {
                    try? highlightDismissed(highlightID, reason: reason, flow: flowID)
                }
                return
            }
        }
    }
#endif
