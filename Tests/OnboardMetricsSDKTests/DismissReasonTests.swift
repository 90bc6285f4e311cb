import Testing

@testable import OnboardMetricsSDK

/// The TipKit adapter's mapping, which is platform-neutral so that it is tested here: every case
/// of TipKit's `Tips.InvalidationReason` (iOS 17 SDK: actionPerformed, tipClosed,
/// displayCountExceeded, displayDurationExceeded) has a reason, `tipClosed` is `closed`, and the
/// stored raw values are TipKit's names but for that one.
@Suite struct DismissReasonTests {
    @Test func everyTipKitReasonMaps() {
        #expect(DismissReason(tipKitReasonName: "actionPerformed") == .actionPerformed)
        #expect(DismissReason(tipKitReasonName: "tipClosed") == .closed)
        #expect(DismissReason(tipKitReasonName: "displayCountExceeded") == .displayCountExceeded)
        #expect(DismissReason(tipKitReasonName: "displayDurationExceeded") == .displayDurationExceeded)
        #expect(DismissReason(tipKitReasonName: "closed") == nil)
        #expect(DismissReason(tipKitReasonName: "somethingNew") == nil)
    }

    @Test func storedNamesAreTipKitsButForClosed() {
        let renamed = DismissReason.allCases.filter { DismissReason(tipKitReasonName: $0.rawValue) != $0 }
        #expect(renamed == [.closed])
    }
}
