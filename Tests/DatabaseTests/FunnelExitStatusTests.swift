import Foundation
import OnboardMetrics
import Testing

@testable import OnboardMetricsSDK

/// `funnel`'s exit statuses (README, "Exit codes") and the command-line side of issue 14's
/// defects 2, 6, 12, 13 and 14: every bad input is an error with its status, never a crash.
@Suite struct FunnelExitStatusTests {
    static let examples = TestDatabase.packageRoot.appendingPathComponent("examples/flows/health-study.json").path

    static func folder(_ files: [String: String]) throws -> URL {
        let folder = try TestDatabase.temporaryFolder("exit-status")
        for (name, text) in files { try Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
        return folder
    }

    @Test func sinceAfterUntilIsAUsageError() async throws {
        let outcome = try await FunnelProcess.run([
            "report", "--steps", "a,b", "--since", "2026-02-01", "--until", "2026-01-01", "--database-url",
            "postgresql://nobody@/x?host=/nonexistent-folder",
        ])
        #expect(outcome.status == 64, "\(outcome.errors)")
        #expect(outcome.errors.contains("--since"))
    }

    /// Issue 31's N7: a bound before 1970 selected nothing and printed an empty report (exit 0).
    @Test(arguments: [
        ["report", "--steps", "a,b", "--since", "1969-12-31"],
        ["report", "--flow", examples, "--until", "1960-01-01T00:00:00Z"],
        ["trends", "--flow", examples, "--since", "1900-01-01"],
        ["conformance", "--flow", examples, "--since", "1969-12-31T23:59:59Z"],
    ])
    func aBoundBefore1970IsAUsageError(arguments: [String]) async throws {
        let outcome = try await FunnelProcess.run(
            arguments + ["--database-url", "postgresql://nobody@/x?host=/nonexistent-folder", "--quiet"])
        #expect(outcome.status == 64, "\(outcome.errors)")
        #expect(outcome.errors.contains("before 1970"), "\(outcome.errors)")
    }

    /// Issue 31: a mapping file that cannot be used exited 64 from ingest and 1 from serve
    /// (README: 65), and one starting with a UTF-8 byte order mark could not be read.
    @Test func aMappingFileIsDataAndMayStartWithAByteOrderMark() async throws {
        let good = #"{"events": {"Signed Up": {"kind": "flow_completed", "flow_id": "signup"}}}"#
        let folder = try Self.folder([
            "bad.json": #"{"events": {"Signed Up": {"kind": "signed_up"}}}"#,
            "bom.json": "\u{FEFF}" + good, "events.jsonl": "",
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let nowhere = ["--database-url", "postgresql://nobody@/x?host=/nonexistent-folder", "--quiet"]
        let bad = folder.appendingPathComponent("bad.json").path
        let events = folder.appendingPathComponent("events.jsonl").path
        for arguments in [
            ["ingest", events, "--input-format", "segment", "--mapping", bad],
            ["serve", "--port", "0", "--mapping", bad],
        ] {
            let outcome = try await FunnelProcess.run(arguments + nowhere)
            #expect(outcome.status == 65, "\(arguments[0]): \(outcome.errors)")
            #expect(outcome.errors.contains("bad.json") && outcome.errors.contains("signed_up"), "\(outcome.errors)")
        }
        // With a byte order mark the mapping is read; what stops the run is the missing database.
        let bom = folder.appendingPathComponent("bom.json").path
        let outcome = try await FunnelProcess.run(
            ["ingest", events, "--input-format", "segment", "--mapping", bom] + nowhere)
        #expect(outcome.status == 69, "\(outcome.errors)")
    }

    /// Issue 31's N6: a tuning whose mixture over- or underflows printed a significant result.
    @Test(arguments: ["1e-300", "0.5", "9", "1e308", "nan", "20000000000"])
    func aSequentialTuningOutOfRangeIsAUsageError(tuning: String) async throws {
        let outcome = try await FunnelProcess.run([
            "experiment", "consent-copy", "--metric", "completion", "--sequential", "--tuning", tuning,
            "--database-url", "postgresql://nobody@/x?host=/nonexistent-folder", "--quiet",
        ])
        #expect(outcome.status == 64, "\(outcome.errors)")
        #expect(outcome.errors.contains("--tuning"), "\(outcome.errors)")
    }

    @Test(arguments: [
        ["report", "--flow", examples, "--window", "200000000d"],
        ["report", "--flow", examples, "--inactivity", "200000000d"],
        ["discovery", "--window", "200000000d"],
        ["experiment", "consent-copy", "--metric", "completion", "--window", "200000000d"],
    ])
    func aHugeDurationIsAUsageErrorNotACrash(arguments: [String]) async throws {
        let configuration = try await TestDatabase.migrated(
            "exit_status_durations_\(arguments[0])_\(arguments[arguments.count - 2])")
        let outcome = try await FunnelProcess.run(
            arguments + ["--database-url", TestDatabase.url(of: configuration), "--quiet"])
        #expect(outcome.status == 64, "\(outcome.errors)")
        #expect(outcome.errors.contains("100 years"), "\(outcome.errors)")
    }

    @Test func anUnreachableDatabaseIs69AndShowsNoPassword() async throws {
        let outcome = try await FunnelProcess.run([
            "report", "--steps", "a,b", "--quiet", "--database-url",
            "postgresql://nobody:sup3rsecret@/x?host=/nonexistent-folder&connect_timeout=2",
        ])
        #expect(outcome.status == 69, "\(outcome.errors)")
        #expect(!outcome.errors.contains("sup3rsecret"))
    }

    @Test func flowFileProblemsAreDataErrorsNamingFileAndPath() async throws {
        let configuration = try await TestDatabase.migrated("exit_status_flows")
        let deep = String(repeating: "(", count: 30_000) + "a" + String(repeating: ")", count: 30_000)
        let nested = String(repeating: "(", count: 1_000) + "a" + String(repeating: ")", count: 1_000)
        let cases: [(files: [String: String], flow: String, expected: [String])] = [
            (
                ["typo.json": #"{"id":"f","version":1,"steps":[{"id":"a","skipable":true}]}"#], "typo.json",
                ["typo.json", "$.steps[0].skipable"]
            ),
            (
                ["deep.json": #"{"id":"f","version":1,"steps":[{"id":"a","when":"\#(deep)"}]}"#], "deep.json",
                ["deep.json: $.steps[0].when", "at most"]
            ),
            (
                ["nested.json": #"{"id":"f","version":1,"steps":[{"id":"a","when":"\#(nested)"}]}"#], "nested.json",
                ["nested"]
            ),
            (
                [
                    "main.json": #"{"id":"main","version":1,"steps":[{"id":"a","handOff":"login"}]}"#,
                    "login.json": #"{"id":"login","version":1,"steps":[{"id":"l","handOff":"account"}]}"#,
                    "account.json": #"{"id":"account","version":1,"steps":[{"id":"x","handOff":"login"}]}"#,
                ], "main.json", ["cycle", ".json: "]
            ),
            (
                [
                    "main.json": #"{"id":"main","version":1,"steps":[{"id":"a","handOff":"login"}]}"#,
                    "login.json": #"{"id":"login","#,
                ], "main.json", ["login.json"]
            ),
        ]
        for (files, flow, expected) in cases {
            let folder = try Self.folder(files)
            defer { try? FileManager.default.removeItem(at: folder) }
            let outcome = try await FunnelProcess.run([
                "report", "--flow", folder.appendingPathComponent(flow).path, "--quiet", "--database-url",
                TestDatabase.url(of: configuration),
            ])
            #expect(outcome.status == 65, "\(flow): \(outcome.errors)")
            for text in expected { #expect(outcome.errors.contains(text), "\(flow): \(outcome.errors)") }
            #expect(!outcome.errors.contains("is not a known flow"), "\(outcome.errors)")
        }
    }

    @Test func aRejectsPathThatIsAnInputIsRefusedAndTheInputKept() async throws {
        let configuration = try await TestDatabase.migrated("exit_status_rejects")
        let events = SampleEvents.make(sessions: 2, perSession: 5)
        let first = events.prefix(5).map(\.jsonLine).joined(separator: "\n") + "\nnot json\n"
        let second = events.suffix(5).map(\.jsonLine).joined(separator: "\n") + "\n"
        let folder = try Self.folder(["a.jsonl": first, "b.jsonl": second, "notes.txt": "keep me\n"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let a = folder.appendingPathComponent("a.jsonl").path
        let b = folder.appendingPathComponent("b.jsonl").path
        let notes = folder.appendingPathComponent("notes.txt").path
        let url = TestDatabase.url(of: configuration)
        // The probe: `ingest a.jsonl b.jsonl --rejects b.jsonl` replaced b.jsonl and exited 0.
        let refused = try await FunnelProcess.run(["ingest", a, b, "--rejects", b, "--database-url", url, "--quiet"])
        #expect(refused.status == 64, "\(refused.errors)")
        #expect(try String(contentsOfFile: b, encoding: .utf8) == second)
        let spelledOtherwise = try await FunnelProcess.run([
            "ingest", a, b, "--rejects", folder.path + "/./b.jsonl", "--database-url", url, "--quiet",
        ])
        #expect(spelledOtherwise.status == 64)
        #expect(try String(contentsOfFile: b, encoding: .utf8) == second)
        // A file that is not a rejects file is not replaced either.
        let other = try await FunnelProcess.run(["ingest", a, "--rejects", notes, "--database-url", url, "--quiet"])
        #expect(other.status == 64, "\(other.errors)")
        #expect(try String(contentsOfFile: notes, encoding: .utf8) == "keep me\n")
        // A rejects file of an earlier run is replaced; good lines land once.
        let rejects = folder.appendingPathComponent("run.rejects").path
        for _ in 0..<2 {
            let outcome = try await FunnelProcess.run([
                "ingest", a, b, "--rejects", rejects, "--database-url", url, "--quiet", "--format", "json",
            ])
            #expect(outcome.status == 0, "\(outcome.errors)")
        }
        let written = try String(contentsOfFile: rejects, encoding: .utf8)
        #expect(written.hasPrefix("# \(a):6: "), "\(written)")
        #expect(written.hasSuffix("\nnot json\n"), "\(written)")
        #expect(written.components(separatedBy: "\n# ").count == 1)
        let stored = try await EventRecorderTests.count(configuration)
        #expect(stored.total == 10)
    }
}
