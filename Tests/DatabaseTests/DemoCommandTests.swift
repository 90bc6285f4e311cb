import Foundation
import Testing

@testable import OnboardMetrics

/// `funnel demo` end to end on a throwaway database (a small data set), and its page rendered in
/// headless Chromium.
@Suite struct DemoCommandTests {
    @Test func demoRecordsOnceWritesTheReportAndRendersInChromium() async throws {
        let configuration = try await TestDatabase.fresh("demo_cli")
        var components = try #require(URLComponents(string: try TestDatabase.adminURL()))
        components.path = "/" + (try #require(configuration.overrides["dbname"]))
        let url = try #require(components.string)
        let folder = try TestDatabase.temporaryFolder("demo")
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = folder.appendingPathComponent("report.html").path
        let arguments = ["demo", "--sessions", "3000", "--database-url", url, "--output", page, "--quiet"]

        let first = try Self.run(TestDatabase.funnelExecutable, arguments)
        #expect(first.status == 0, "\(first.output)")
        #expect(first.output.contains("Funnel health-study v1"))
        #expect(first.output.contains("Feature discovery"))
        #expect(first.output.contains("Forecast of health-study v2"))
        #expect(first.output.contains("back-test"))
        let events = try await Self.eventCount(configuration)
        #expect(events > 10_000)
        let html = try String(contentsOfFile: page, encoding: .utf8)
        for section in [
            "funnel-health-study", "discovery", "experiment-consent-copy", "forecast-health-study",
            "conformance-health-study",
        ] {
            #expect(html.contains("<section id=\"\(section)\""), "\(section)")
        }

        let started = Date()
        let second = try Self.run(TestDatabase.funnelExecutable, arguments)
        #expect(second.status == 0)
        #expect(try await Self.eventCount(configuration) == events)
        #expect(Date().timeIntervalSince(started) < 60)

        // The page in a real browser: fails, not skips, without Chromium (.ci/run installs it).
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") else {
            Issue.record("chromium is not installed: apt-get install -y chromium (the HTML render check needs it)")
            return
        }
        let script = TestDatabase.packageRoot.appendingPathComponent("scripts/check-html-render.sh").path
        let render = try Self.run("/bin/bash", [script, page, folder.appendingPathComponent("report.png").path])
        #expect(render.status == 0, "\(render.output)")
    }

    private static func eventCount(_ configuration: PostgresConfiguration) async throws -> Int {
        try await TestDatabase.withConnection(configuration) {
            try $0.query("SELECT count(*)::int8 AS n FROM events").first?["n"].int ?? -1
        }
    }

    private static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
