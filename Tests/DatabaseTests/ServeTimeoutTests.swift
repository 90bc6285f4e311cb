import Foundation
import Testing

@testable import OnboardMetricsPostgres
@testable import OnboardMetricsSDK

/// `funnel serve` closes connections whose client is too slow (issue 14, defect 11): a client
/// sending one byte at a time no longer holds its connection indefinitely.
@Suite(.serialized) struct ServeTimeoutTests {
    @Test func slowHeadersSlowBodiesAndIdleConnectionsAreClosed() async throws {
        // The server in a process of its own, as deployed: the limits are timed against a server whose
        // event loops do not share a process with the rest of the suite.
        let fixture = try await ServeFixture.start(
            "serve_timeouts", ["--header-timeout", "1", "--body-timeout", "1.5", "--idle-timeout", "2"])
        defer { fixture.close() }
        let port = fixture.endpoint.port ?? 0
        let key = fixture.key
        let results = try await BlockingIO.run {
            // Headers a byte at a time, far longer than 1 s in all.
            let header = try LoopbackClient(port: port).secondsUntilClosed(
                dribble: "POST /v1/batch HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + String(repeating: "a", count: 100))
            // A complete head, then the body a byte at a time.
            let bodyClient = try LoopbackClient(port: port)
            _ = bodyClient.send(
                "POST /v1/batch HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(key)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 500\r\n\r\n")
            let body = bodyClient.secondsUntilClosed(dribble: String(repeating: " ", count: 100))
            // Connected, sending nothing.
            let idle = try LoopbackClient(port: port).secondsUntilClosed(dribble: "")
            return (header, body, idle)
        }
        let header = try #require(results.0, "a slow head kept its connection")
        let body = try #require(results.1, "a slow body kept its connection")
        let idle = try #require(results.2, "an idle connection was kept")
        #expect(header >= 0.8 && header < 5, "header: \(header) s")
        #expect(body >= 1.2 && body < 5, "body: \(body) s")
        #expect(idle >= 1.8 && idle < 6, "idle: \(idle) s")
        // A normal client is not affected.
        let reply = try await ServeCommandTests.get(fixture.endpoint, "healthz")
        #expect(reply.status == 200)
    }

    @Test func timeoutFlagsAreValidated() async throws {
        let outcome = try await FunnelProcess.run(["serve", "--header-timeout", "0"])
        #expect(outcome.status == 64)
        #expect(outcome.errors.contains("--header-timeout"))
    }
}
