import Foundation
import Testing

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsRendering
@testable import OnboardMetricsStatistics

/// A unit list written in pieces is, put together, exactly the list rendered whole, in every
/// format and at every batch size, for lists of a batch and around it.
@Suite struct UnitListReportStreamingTests {
    /// A list of `count` rows whose user ids hold what CSV and JSON escape, and dates with and
    /// without milliseconds.
    static func report(rows count: Int, using random: inout SplitMix64) -> UnitListReport {
        let awkward = [
            "plain", "a,b", "say \"hi\"", "two\nlines", "back\\slash/slash", "ünïcödé ✓", "", "\r\n",
            "{\"rows\" : [\n\n  ]}",
        ]
        let rows = (0..<count).map { index in
            UnitListReport.Row(
                userID: (awkward.randomElement(using: &random) ?? "") + String(index),
                sessionID: UUID(), sessions: Int.random(in: 1...9, using: &random),
                start: Date(timeIntervalSince1970: 1_790_000_000 + Double(index)),
                lastEvent: Date(
                    timeIntervalSince1970: 1_790_000_000 + Double(index) + Double.random(in: 0...1e5, using: &random)),
                outcome: ["completed", "dropped", "in_progress"].randomElement(using: &random) ?? "")
        }
        return UnitListReport(
            flowID: "study, \"v1\"", flowVersion: 3, unit: .session, step: count % 2 == 0 ? "consent" : nil,
            status: .dropped, since: nil, until: Date(timeIntervalSince1970: 1_800_000_000),
            reportEnd: Date(timeIntervalSince1970: 1_800_000_000), units: count, rows: rows)
    }

    @Test(arguments: [0, 1, 2, 999, 1_000, 1_001, 2_345])
    func thePiecesAreTheWholeRendering(rows: Int) throws {
        var random = SplitMix64(seed: UInt64(rows) + 1)
        let report = Self.report(rows: rows, using: &random)
        for format in [ReportFormat.json, .csv, .text, .markdown] {
            let whole = try report.rendered(format)
            for batch in [1, 7, UnitListReport.streamingBatch] {
                var pieces: [String] = []
                try report.write(format, batch: batch) { pieces.append($0) }
                #expect(pieces.joined() == whole, "\(format) in batches of \(batch)")
                if rows > batch, format == .json || format == .csv {
                    // Written in pieces, not whole.
                    #expect(pieces.count >= rows / batch)
                }
            }
        }
    }
}
