import Foundation
import Testing

@testable import OnboardMetricsReader
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// `funnel ingest --input-format segment|posthog`: export lines through the same mapping as the
/// collector; stable ids (a second run adds nothing); bad lines rejected with file and line.
@Suite struct EcosystemIngestTests {
    static let segment = """
        {"type":"track","event":"App Opened","userId":"imp-1","messageId":"a1","originalTimestamp":"2026-11-20T10:00:00.000Z","sentAt":"2026-11-20T10:00:05.000Z","receivedAt":"2026-11-20T10:00:03.000Z","timestamp":"2026-11-20T09:59:58.000Z"}
        {"type":"screen","name":"Welcome","anonymousId":"imp-2","messageId":"a2","timestamp":"2026-11-20T10:01:00.000Z"}
        {"type":"track","userId":"imp-3","messageId":"a3","timestamp":"2026-11-20T10:01:00.000Z"}
        """
    static let posthog = """
        {"event":"Onboarding Step Viewed","distinct_id":"ph-1","uuid":"0192a1b2-0000-7000-8000-000000000001","timestamp":"2026-11-20T10:00:00Z","properties":{"flow_id":"signup","step_id":"welcome","$session_id":"0192a1b2-0000-7000-8000-00000000abcd"}}
        """

    @Test func exportsLandOnceThroughTheMapping() async throws {
        let configuration = try await TestDatabase.migrated("ecosystem_ingest")
        let url = TestDatabase.url(of: configuration)
        let folder = try TestDatabase.temporaryFolder("ecosystem_ingest")
        defer { try? FileManager.default.removeItem(at: folder) }
        let segmentFile = folder.appendingPathComponent("segment.jsonl")
        let posthogFile = folder.appendingPathComponent("posthog.jsonl")
        let mappingFile = folder.appendingPathComponent("mapping.json")
        try Data(Self.segment.utf8).write(to: segmentFile)
        try Data(Self.posthog.utf8).write(to: posthogFile)
        try Data(#"{"screens":{"Welcome":{"kind":"step_viewed","flow_id":"signup","step_id":"welcome"}}}"#.utf8)
            .write(to: mappingFile)
        for run in 1...2 {
            let outcome = try await FunnelProcess.run(
                [
                    "ingest", "--input-format", "segment", "--mapping", mappingFile.path, segmentFile.path,
                    "--database-url", url, "--format", "json", "--quiet",
                ])
            #expect(outcome.status == 0, "\(outcome.errors)")
            let summary = try JSONDecoder().decode(IngestSummary.self, from: Data(outcome.output.utf8))
            #expect(summary.inserted == (run == 1 ? 2 : 0) && summary.duplicates == (run == 1 ? 0 : 2))
            #expect(summary.rejected == 1)
        }
        let rejects = try String(contentsOfFile: segmentFile.path + ".rejects", encoding: .utf8)
        #expect(rejects.contains("segment.jsonl:3: event: is required for a track call"))
        let posthog = try await FunnelProcess.run(
            ["ingest", "--input-format", "posthog", posthogFile.path, "--database-url", url, "--quiet"])
        #expect(posthog.status == 0, "\(posthog.errors)")

        let rows = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query(
                "SELECT user_id, kind, step_id, session_id, occurred_at, sent_at, received_at FROM events ORDER BY user_id"
            ).map { $0 }
        }
        #expect(rows.map { $0["user_id"].string } == ["imp-1", "imp-2", "ph-1"])
        #expect(rows.map { $0["kind"].string } == ["custom", "step_viewed", "step_viewed"])
        // Segment's archive times: the reader's correction gives back Segment's own `timestamp`.
        let imported = Event(
            eventID: UUID(), sessionID: UUID(), userID: "imp-1", seq: 0, kind: .custom,
            occurredAt: try #require(rows[0]["occurred_at"].date), sentAt: rows[0]["sent_at"].date,
            receivedAt: rows[0]["received_at"].date)
        #expect(imported.correctedTime == Timestamp.parse("2026-11-20T09:59:58.000Z"))
        #expect(rows[2]["session_id"].uuid == StableID.sessionID(for: "ph-1\u{1F}0192a1b2-0000-7000-8000-00000000abcd"))
    }

    struct Collected: SessionConsumer {
        var sessions: [RecordedSession] = []
        mutating func add(_ session: RecordedSession) throws { sessions.append(session) }
    }

    /// Segment and PostHog send no position within a session: stored as 0, numbered 1…n in time
    /// order by replay, with a session id (PostHog's `$session_id`, lines out of order) and without
    /// (Segment: the user's session stream).
    @Test func mappedEventsGetTheDocumentedSeqOnReplay() async throws {
        let configuration = try await TestDatabase.migrated("ecosystem_seq")
        let url = TestDatabase.url(of: configuration)
        let folder = try TestDatabase.temporaryFolder("ecosystem_seq")
        defer { try? FileManager.default.removeItem(at: folder) }
        let session = #""$session_id":"0192a1b2-0000-7000-8000-00000000beef""#
        let posthog = [
            (3, "Onboarding Step Completed", "10:00:09"), (1, "Onboarding Started", "10:00:00"),
            (2, "Onboarding Step Viewed", "10:00:04"),
        ].map { number, event, time in
            #"{"event":"\#(event)","distinct_id":"ph-9","uuid":"0192a1b2-0000-7000-8000-00000000000\#(number)","timestamp":"2026-11-20T\#(time)Z","properties":{"flow_id":"signup","step_id":"welcome",\#(session)}}"#
        }
        let segment = [("b2", "Profile Created", "11:00:07"), ("b1", "Onboarding Started", "11:00:01")].map {
            id, event, time in
            #"{"type":"track","event":"\#(event)","userId":"seg-9","messageId":"\#(id)","timestamp":"2026-11-20T\#(time).000Z"}"#
        }
        for (format, lines) in [("posthog", posthog), ("segment", segment)] {
            let file = folder.appendingPathComponent("\(format).jsonl")
            try Data(lines.joined(separator: "\n").utf8).write(to: file)
            let outcome = try await FunnelProcess.run(
                ["ingest", "--input-format", format, file.path, "--database-url", url, "--quiet"])
            #expect(outcome.status == 0, "\(outcome.errors)")
        }
        let stored = try await TestDatabase.withConnection(configuration) { connection in
            try connection.query("SELECT DISTINCT seq FROM events").map { $0["seq"].int }
        }
        #expect(stored == [0])
        let reader = ShardedReader(
            reader: SessionReader(), sources: [.init(configuration: configuration, buckets: nil)])
        let sessions = try await reader.read { Collected() }.flatMap(\.sessions).sorted { $0.userID < $1.userID }
        #expect(sessions.map(\.userID) == ["ph-9", "seg-9"])
        #expect(sessions.map { $0.events.map(\.seq) } == [[1, 2, 3], [1, 2]])
        // Numbered in time order, whatever order the lines came in.
        #expect(sessions[0].events.map(\.kind) == [.sessionStarted, .stepViewed, .stepCompleted])
        #expect(sessions.allSatisfy { zip($0.events, $0.events.dropFirst()).allSatisfy { $0.time <= $1.time } })
    }
}
