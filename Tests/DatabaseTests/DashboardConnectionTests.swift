import Foundation
import Testing

@testable import OnboardMetricsPostgres

/// `funnel dashboard`'s connections (issue 59, P3-3): the collector's header, body and idle time
/// limits, and caps per client address and in all, so one unauthenticated client holding
/// thousands of idle sockets no longer fills the file limit and shuts `/healthz` out. The server
/// runs in a process of its own, as deployed; clients come from several 127.x addresses.
@Suite(.serialized) struct DashboardConnectionTests {
    static let database = Task { try await TestDatabase.migrated("dashboard_connections") }

    /// `funnel dashboard` on a free port with `arguments`; its port.
    static func start(_ arguments: [String]) async throws -> (FunnelProcess, Int) {
        let url = TestDatabase.url(of: try await database.value)
        let (server, endpoint) = try await FunnelProcess.serve(
            ["--database-url", url, "--cache-events", "0", "--quiet"] + arguments, command: "dashboard")
        return (server, endpoint.port ?? 0)
    }

    @Test func slowHeadersSlowBodiesAndIdleConnectionsAreClosed() async throws {
        let (server, port) = try await Self.start([
            "--header-timeout", "1", "--body-timeout", "1.5", "--idle-timeout", "2",
        ])
        defer { server.stopBlocking(signal: SIGKILL) }
        let results = try await BlockingIO.run {
            // Headers a byte at a time, far longer than 1 s in all.
            let header = try LoopbackClient(port: port).secondsUntilClosed(
                dribble: "POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + String(repeating: "a", count: 100))
            // A complete head, then the body a byte at a time.
            let bodyClient = try LoopbackClient(port: port)
            _ = bodyClient.send(
                "POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 500\r\n\r\n")
            let body = bodyClient.secondsUntilClosed(dribble: String(repeating: "a", count: 100))
            // Connected, sending nothing.
            let idle = try LoopbackClient(port: port).secondsUntilClosed(dribble: "")
            // Kept alive after an answer, then nothing.
            let keptAlive = try LoopbackClient(port: port)
            let answer = keptAlive.exchange("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let afterAnswer = keptAlive.secondsUntilClosed(dribble: "")
            return (header, body, idle, LoopbackClient.status(of: answer), afterAnswer)
        }
        let header = try #require(results.0, "a slow head kept its connection")
        let body = try #require(results.1, "a slow body kept its connection")
        let idle = try #require(results.2, "an idle connection was kept")
        #expect(results.3 == 200)
        let keptAlive = try #require(results.4, "an idle kept-alive connection was kept")
        #expect(header >= 0.8 && header < 5, "header: \(header) s")
        #expect(body >= 1.2 && body < 5, "body: \(body) s")
        #expect(idle >= 1.8 && idle < 6, "idle: \(idle) s")
        #expect(keptAlive >= 1.8 && keptAlive < 6, "kept alive: \(keptAlive) s")
        let status = try await BlockingIO.run { LoopbackClient.status(port: port, path: "/healthz", from: "127.0.0.1") }
        #expect(status == 200)
    }

    /// One client holds its cap; its next connection is answered 503 and closed at once, while
    /// another client's `/healthz` answers. The total cap holds across clients; places come back
    /// when connections close.
    @Test func oneClientsConnectionsAreCappedWhileOthersGetIn() async throws {
        let (server, port) = try await Self.start([
            "--max-connections-per-client", "8", "--max-connections", "20", "--idle-timeout", "30",
        ])
        defer { server.stopBlocking(signal: SIGKILL) }
        let outcome = try await BlockingIO.run { () throws -> [String: Int] in
            var figures: [String: Int] = [:]
            var held = try (0..<16).map { _ in try LoopbackClient(port: port, from: "127.0.0.2") }
            let states = LoopbackClient.closedCount(of: held, expecting: 8)
            figures["open"] = held.count - states.closed
            figures["refused503"] = states.refused503
            figures["otherHealthz"] = LoopbackClient.status(port: port, path: "/healthz", from: "127.0.0.3")
            figures["sameHealthz"] = LoopbackClient.status(port: port, path: "/healthz", from: "127.0.0.2")
            // 8 from .2 and 8 from .3 held: .4 finds 4 places of the 20 (1 more for its healthz).
            let third = try (0..<8).map { _ in try LoopbackClient(port: port, from: "127.0.0.3") }
            let fourth = try (0..<8).map { _ in try LoopbackClient(port: port, from: "127.0.0.4") }
            figures["thirdOpen"] = third.count - LoopbackClient.closedCount(of: third, expecting: 0).closed
            figures["fourthOpen"] = fourth.count - LoopbackClient.closedCount(of: fourth, expecting: 4).closed
            figures["fullHealthz"] = LoopbackClient.status(port: port, path: "/healthz", from: "127.0.0.5")
            // Closed: their places come back.
            held.removeAll()
            usleep(500_000)
            figures["afterHealthz"] = LoopbackClient.status(port: port, path: "/healthz", from: "127.0.0.2")
            withExtendedLifetime((third, fourth)) {}
            return figures
        }
        #expect(outcome["open"] == 8, "\(outcome)")
        #expect(outcome["refused503"] == 8, "\(outcome)")
        #expect(outcome["otherHealthz"] == 200, "\(outcome)")
        #expect(outcome["sameHealthz"] == 0 || outcome["sameHealthz"] == 503, "\(outcome)")
        #expect(outcome["thirdOpen"] == 8, "\(outcome)")
        #expect(outcome["fourthOpen"] == 4, "\(outcome)")
        #expect(outcome["fullHealthz"] != 200, "\(outcome)")
        #expect(outcome["afterHealthz"] == 200, "\(outcome)")
    }

    /// A bounded load over loopback: one client opens twice its cap (400 sockets, within 20 s)
    /// and holds them; `/healthz` from another address is timed 20 times meanwhile.
    @Test func healthzAnswersWhileOneClientHoldsTwiceItsCap() async throws {
        let cap = 200
        let (server, port) = try await Self.start([
            "--max-connections-per-client", String(cap), "--max-connections", "1000", "--idle-timeout", "60",
        ])
        defer { server.stopBlocking(signal: SIGKILL) }
        let outcome = try await BlockingIO.run {
            () throws -> (held: Int, refused: Int, healthz: [Double], all200: Bool) in
            let started = Date()
            var sockets: [LoopbackClient] = []
            while sockets.count < 2 * cap, Date().timeIntervalSince(started) < 20 {
                sockets.append(try LoopbackClient(port: port, from: "127.0.0.2"))
            }
            let states = LoopbackClient.closedCount(of: sockets, expecting: cap)
            var latencies: [Double] = []
            var all200 = true
            for _ in 0..<20 {
                let asked = Date()
                all200 = all200 && LoopbackClient.status(port: port, path: "/healthz", from: "127.0.0.3") == 200
                latencies.append(Date().timeIntervalSince(asked))
            }
            withExtendedLifetime(sockets) {}
            return (sockets.count - states.closed, states.refused503, latencies, all200)
        }
        let sorted = outcome.healthz.sorted()
        print(
            "dashboard load: \(2 * cap) sockets from one client, \(outcome.held) held, \(outcome.refused) refused "
                + "(503); /healthz from another: median \(String(format: "%.1f", sorted[sorted.count / 2] * 1_000)) ms, "
                + "max \(String(format: "%.1f", (sorted.last ?? 0) * 1_000)) ms")
        #expect(outcome.held == cap)
        #expect(outcome.refused == cap)
        #expect(outcome.all200)
        #expect((sorted.last ?? 99) < 2)
    }

    @Test func connectionFlagsAreValidated() async throws {
        for arguments in [
            ["--idle-timeout", "0"], ["--max-connections-per-client", "0"], ["--max-connections", "-1"],
        ] {
            let outcome = try await FunnelProcess.run(["dashboard"] + arguments)
            #expect(outcome.status == 64, "\(arguments)")
            #expect(outcome.errors.contains(arguments[0]), "\(arguments): \(outcome.errors)")
        }
    }
}
