import Foundation
import Testing

/// Reports per user count a person once across the anonymous id of before sign-up and the id the
/// app identified them with (issue 32, item 3, the server side), from Segment's own archive
/// format: `identify` with `anonymousId` and `userId`, and `alias`.
@Suite struct PersonMergeTests {
    static func line(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    @Test func perUserReportsCountAPersonOnceAcrossAnonymousAndIdentifiedIds() async throws {
        let configuration = try await TestDatabase.migrated("person_merge")
        let url = TestDatabase.url(of: configuration)
        let folder = try TestDatabase.temporaryFolder("person-merge")
        defer { try? FileManager.default.removeItem(at: folder) }
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        func at(_ seconds: Double) -> String { ISO8601DateFormatter().string(from: start.addingTimeInterval(seconds)) }
        var lines: [String] = []
        for user in 0..<5 {
            let base = Double(user) * 600
            let anonymous = "anon-\(user)"
            let member = "member-\(user)"
            lines.append(
                try Self.line([
                    "type": "track", "event": "Onboarding Started", "anonymousId": anonymous,
                    "messageId": "s\(user)", "timestamp": at(base),
                ]))
            lines.append(
                try Self.line([
                    "type": "track", "event": "Profile Created", "anonymousId": anonymous,
                    "messageId": "p\(user)", "timestamp": at(base + 10),
                ]))
            // The user signs up: the identify links the two ids; the rest comes under the member id.
            lines.append(
                try Self.line([
                    "type": "identify", "anonymousId": anonymous, "userId": member,
                    "messageId": "i\(user)", "timestamp": at(base + 20), "traits": ["plan": "free"],
                ]))
            if user < 3 {
                lines.append(
                    try Self.line([
                        "type": "track", "event": "Onboarding Completed", "userId": member,
                        "anonymousId": anonymous, "messageId": "c\(user)", "timestamp": at(base + 30),
                    ]))
            }
        }
        // Member 4 is renamed by an alias; the new id completes.
        lines.append(
            try Self.line([
                "type": "alias", "previousId": "member-4", "userId": "customer-4",
                "messageId": "a4", "timestamp": at(2_430),
            ]))
        lines.append(
            try Self.line([
                "type": "track", "event": "Onboarding Completed", "userId": "customer-4",
                "messageId": "c4", "timestamp": at(2_440),
            ]))
        let file = folder.appendingPathComponent("segment.jsonl")
        // Written twice over, shuffled: merges do not depend on the order events arrive in.
        try Data((lines + lines).shuffled().joined(separator: "\n").utf8).write(to: file)
        let ingested = try await FunnelProcess.run(
            ["ingest", file.path, "--input-format", "segment", "--database-url", url, "--quiet"])
        #expect(ingested.status == 0, "\(ingested.errors)")

        let steps = "Onboarding Started,Profile Created,Onboarding Completed"
        func funnel(_ per: String) async throws -> (units: Int?, counts: [Int?], errors: String) {
            let outcome = try await FunnelProcess.run([
                "report", "--steps", steps, "--per", per, "--format", "json", "--database-url", url,
            ])
            #expect(outcome.status == 0, "\(outcome.errors)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [String: Any])
            let rows = try #require(json["rows"] as? [[String: Any]])
            return (json["units"] as? Int, rows.map { $0["count"] as? Int }, outcome.errors)
        }
        // Per user: 5 people (not 5 anonymous ids + 5 members + 1 customer), 4 of them completed;
        // merged: the 5 anonymous ids and member-4 (aliased to customer-4, the smaller identified id).
        let people = try await funnel("user")
        #expect(people.units == 5)
        #expect(people.counts == [5, 5, 4])
        #expect(people.errors.contains("identity: 6 ids merged into 5 people"), "\(people.errors)")
        // Per session nothing is merged: the anonymous and the identified streams are sessions of their own.
        let sessions = try await funnel("session")
        #expect(sessions.counts.first == 5)
        #expect(!sessions.errors.contains("identity:"))
    }
}
