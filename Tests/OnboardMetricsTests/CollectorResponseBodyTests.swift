import Foundation
import Testing

@testable import OnboardMetricsCollector
@testable import OnboardMetricsSDK

@Suite struct CollectorResponseBodyTests {
    /// The hand-written answer must be what JSONEncoder writes, byte for byte.
    @Test(arguments: [0, 1, 3, 100, 1_000])
    func anAllAcceptedAnswerIsWhatJSONEncoderWrites(count: Int) {
        var random = SystemRandomNumberGenerator()
        let results = (0..<count).map { index in
            BatchResponse.Result(
                index: index,
                eventID: index == 1
                    ? nil
                    : UUID(
                        uuid: (
                            UInt8.random(in: 0...255, using: &random), 0xAB, 0xCD, 0xEF, 0, 1, 0x7F, 0xFF, 0x80, 9,
                            10, 11, 12, 13, 14, UInt8(index % 256)
                        )),
                status: .accepted)
        }
        let response = BatchResponse(results: results)
        let fast = Collector.encodeBatchResponse(response)
        #expect(String(decoding: fast, as: UTF8.self) == String(decoding: Collector.encode(response), as: UTF8.self))
        let decoded = try? JSONDecoder().decode(BatchResponse.self, from: fast)
        #expect(decoded == response)
    }

    @Test func anAnswerWithRejectionsIsWhatJSONEncoderWrites() {
        let response = BatchResponse(results: [
            .init(index: 0, eventID: UUID(), status: .accepted),
            Collector.rejection(
                1, nil, EventValidationError(.malformed, field: "name", reason: "a \"quoted\" name\twith\u{8} control")),
        ])
        #expect(Collector.encodeBatchResponse(response) == Collector.encode(response))
    }
}
