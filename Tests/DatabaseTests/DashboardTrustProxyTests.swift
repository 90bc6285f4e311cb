import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import OnboardMetricsDashboard
@testable import OnboardMetricsPostgres

/// `funnel dashboard --trust-proxy` (issue 59's leftovers): behind a proxy every client has the
/// proxy's address, so one guesser held up every viewer. Trusted, the address the proxy appended
/// to X-Forwarded-For is the client, for the sign-in limiter and the connection caps; off (the
/// default), the header is ignored, so a client cannot spoof a fresh address.
@Suite(.serialized) struct DashboardTrustProxyTests {
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")

    /// The seeded dashboard, trusting a proxy or not, with a limiter of two failures, then one an hour.
    static func application(_ seeded: DashboardFixture.Seeded, trustProxy: Bool) -> some ApplicationProtocol {
        var logger = Logger(label: "test.dashboard")
        logger.logLevel = .critical
        let dashboard = Dashboard(
            data: DashboardData(database: seeded.configuration),
            viewers: ViewerAuthenticator(database: seeded.configuration),
            limiter: SignInLimiter(rate: 1.0 / 3_600, burst: 2), logger: logger, clock: { DashboardFixture.now },
            trustProxy: trustProxy)
        return Application(router: DashboardRouter.make(dashboard))
    }

    /// A wrong secret from `client` as the proxy forwards it, after whatever the client wrote itself.
    static func guess(from client: String, spoofed: String? = nil) throws -> HTTPFields {
        let name = try #require(xForwardedFor)
        return [
            .authorization: DashboardFixture.basic("ana", "guess"),
            name: (spoofed.map { $0 + ", " } ?? "") + client,
        ]
    }

    @Test func trustedTwoClientsBehindOneProxyAreLimitedApart() async throws {
        let seeded = try await DashboardFixture.seeded.value
        let app = Self.application(seeded, trustProxy: true)
        try await app.test(.router) { client in
            // The first client spends its burst, whatever it writes before the proxy's entry.
            for spoofed in [nil, "198.51.100.1", "198.51.100.2"] {
                let headers = try Self.guess(from: "203.0.113.1", spoofed: spoofed)
                try await client.execute(uri: "/", method: .get, headers: headers) { _ in }
            }
            try await client.execute(uri: "/", method: .get, headers: try Self.guess(from: "203.0.113.1")) {
                #expect($0.status == .tooManyRequests)
            }
            // The second, behind the same proxy, is not held up.
            try await client.execute(uri: "/", method: .get, headers: try Self.guess(from: "203.0.113.2")) {
                #expect($0.status == .unauthorized)
            }
        }
    }

    @Test func untrustedTheForwardedAddressIsIgnored() async throws {
        let seeded = try await DashboardFixture.seeded.value
        let app = Self.application(seeded, trustProxy: false)
        try await app.test(.router) { client in
            for address in ["203.0.113.1", "203.0.113.2"] {
                try await client.execute(uri: "/", method: .get, headers: try Self.guess(from: address)) {
                    #expect($0.status == .unauthorized)
                }
            }
            // A fresh address in the header does not buy a fresh burst.
            try await client.execute(uri: "/", method: .get, headers: try Self.guess(from: "203.0.113.3")) {
                #expect($0.status == .tooManyRequests)
            }
        }
    }

    /// Connections through one proxy (127.0.0.2) for two clients: trusted, each client holds its
    /// own cap of 2; untrusted, the proxy's address holds 2 in all.
    @Test(arguments: [true, false])
    func connectionsAreCappedByTheForwardedClientWhenTrusted(_ trusted: Bool) async throws {
        let (server, port) = try await DashboardConnectionTests.start(
            ["--max-connections-per-client", "2", "--idle-timeout", "30"] + (trusted ? ["--trust-proxy"] : []))
        defer { server.stopBlocking(signal: SIGKILL) }
        let statuses = try await BlockingIO.run { () throws -> [Int] in
            var kept: [LoopbackClient] = []
            var statuses: [Int] = []
            // A, A, A, B: each on a connection of its own, kept open (keep-alive).
            for client in ["203.0.113.1", "203.0.113.1", "203.0.113.1", "203.0.113.2"] {
                let connection = try LoopbackClient(port: port, from: "127.0.0.2")
                let answer = connection.exchange(
                    "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: \(client)\r\n\r\n")
                statuses.append(LoopbackClient.status(of: answer))
                kept.append(connection)
            }
            withExtendedLifetime(kept) {}
            return statuses
        }
        if trusted {
            #expect(statuses == [200, 200, 503, 200])
        } else {
            // The third and fourth are refused at accept (a 503, or a reset before it is read).
            #expect(statuses[0..<2] == [200, 200])
            #expect(statuses[2..<4].allSatisfy { $0 != 200 }, "\(statuses)")
        }
    }
}
