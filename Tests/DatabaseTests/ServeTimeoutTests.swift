import Foundation
import Testing

@testable import OnboardMetricsPostgres
@testable import OnboardMetricsSDK

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `funnel serve` closes connections whose client is too slow (issue 14, defect 11): a client
/// sending one byte at a time no longer holds its connection indefinitely.
@Suite(.serialized) struct ServeTimeoutTests {
    /// A raw TCP client on loopback that sends a few bytes at a time and notices the server closing.
    final class SlowClient {
        let socket: Int32

        init(port: Int) throws {
            socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard socket >= 0, connected == 0 else { throw POSIXError(.ECONNREFUSED) }
            var wait = timeval(tv_sec: 0, tv_usec: 200_000)
            setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        }

        deinit { close(socket) }

        /// Sends `text`; false once the connection is gone.
        func send(_ text: String) -> Bool {
            let bytes = Array(text.utf8)
            return bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                == bytes.count
        }

        /// Waits up to 0.2 s for the server; true once it has closed the connection.
        func closedByServer() -> Bool {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(socket, &buffer, buffer.count, 0)
            if count == 0 { return true }
            if count < 0 { return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR }
            return false
        }

        /// Sends `dribble` one character every `interval` seconds (then nothing) until the server
        /// closes the connection; returns the seconds that took, or nil after `limit`.
        func secondsUntilClosed(dribble: String, interval: TimeInterval = 0.2, limit: TimeInterval = 15) -> Double? {
            let started = Date()
            var pending = Array(dribble)
            var lastSend = Date.distantPast
            while Date().timeIntervalSince(started) < limit {
                if !pending.isEmpty, Date().timeIntervalSince(lastSend) >= interval {
                    if !send(String(pending.removeFirst())) { return Date().timeIntervalSince(started) }
                    lastSend = Date()
                }
                if closedByServer() { return Date().timeIntervalSince(started) }
            }
            return nil
        }
    }

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
            let header = try SlowClient(port: port).secondsUntilClosed(
                dribble: "POST /v1/batch HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + String(repeating: "a", count: 100))
            // A complete head, then the body a byte at a time.
            let bodyClient = try SlowClient(port: port)
            _ = bodyClient.send(
                "POST /v1/batch HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(key)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 500\r\n\r\n")
            let body = bodyClient.secondsUntilClosed(dribble: String(repeating: " ", count: 100))
            // Connected, sending nothing.
            let idle = try SlowClient(port: port).secondsUntilClosed(dribble: "")
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
