import Foundation
import OnboardMetricsSDK

extension Collector {
    /// The body of a `200 OK` answer: exactly the bytes ``encode(_:)`` (`JSONEncoder`, sorted
    /// keys) writes, written by hand when every event was accepted.
    ///
    /// Profiling `funnel serve` under load (issue 16) showed `JSONEncoder` spending more CPU on
    /// the answer to a 100-event batch than the parser spent reading the batch. An answer with
    /// rejections (rare, and carrying free text to escape) still goes through `JSONEncoder`.
    static func encodeBatchResponse(_ response: BatchResponse) -> Data {
        guard response.rejected == 0 else { return encode(response) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(48 + response.results.count * 72)
        JSONWriter.appendLiteral(#"{"accepted":"#, to: &bytes)
        JSONWriter.appendInt(response.accepted, to: &bytes)
        JSONWriter.appendLiteral(#","rejected":0,"results":["#, to: &bytes)
        for (position, result) in response.results.enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            // Keys in sorted order: event_id, index, status.
            if let eventID = result.eventID {
                JSONWriter.appendLiteral(#"{"event_id":""#, to: &bytes)
                JSONWriter.appendUUID(eventID, to: &bytes)
                JSONWriter.appendLiteral(#"","index":"#, to: &bytes)
            } else {
                JSONWriter.appendLiteral(#"{"index":"#, to: &bytes)
            }
            JSONWriter.appendInt(result.index, to: &bytes)
            JSONWriter.appendLiteral(#","status":"accepted"}"#, to: &bytes)
        }
        JSONWriter.appendLiteral("]}", to: &bytes)
        return Data(bytes)
    }
}
