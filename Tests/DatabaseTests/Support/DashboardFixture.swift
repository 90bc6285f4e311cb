import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import OnboardMetricsReader
import Testing

@testable import OnboardMetricsDashboard
@testable import OnboardMetricsPostgres
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// One database for the dashboard's tests, seeded once: 400 generated health-study sessions and
/// 150 spotlight-share ones with highlights (2026-01-05 to 2026-02-02, the flows stored by `funnel
/// generate --database`), the stored experiment consent-copy, a viewer and an app key.
enum DashboardFixture {
    struct Seeded: Sendable {
        var configuration: PostgresConfiguration
        var url: String
        var viewer: String
        var secret: String
        var appKey: String
    }

    /// The dashboard's clock in these tests: the end of the generated data.
    static let now = Date(timeIntervalSince1970: 1_769_990_400)  // 2026-02-02T00:00:00Z

    static let seeded = Task { try await seed() }

    private static func seed() async throws -> Seeded {
        let configuration = try await TestDatabase.migrated("dashboard")
        let url = TestDatabase.url(of: configuration)
        let run = try await FunnelProcess.run([
            "generate", "--scenario", "health-study", "--sessions", "400", "--seed", "36", "--database", "--workers",
            "1", "--database-url", url, "--quiet",
        ])
        guard run.status == 0 else { throw FunnelProcess.Failed(description: "funnel generate: \(run.errors)") }
        // A second flow whose highlights the discovery pages count.
        let spotlight = try await FunnelProcess.run([
            "generate", "--scenario", "spotlight", "--sessions", "150", "--seed", "36", "--database", "--workers", "1",
            "--database-url", url, "--quiet",
        ])
        guard spotlight.status == 0 else {
            throw FunnelProcess.Failed(description: "funnel generate: \(spotlight.errors)")
        }
        let experiment = try ExperimentDefinition(key: "consent-copy", variants: ["control", "short-copy"])
        let (viewer, key) = try await TestDatabase.withConnection(configuration) { connection in
            try ExperimentStore().save(experiment, on: connection)
            // A low bcrypt cost keeps the tests quick; checking reads the cost from the hash.
            let viewer = try ViewerStore(cost: 4).create(name: "ana", on: connection)
            let key = try AppKeyStore().create(name: "ios app", on: connection)
            return (viewer.secret, key.secret)
        }
        return Seeded(configuration: configuration, url: url, viewer: "ana", secret: viewer, appKey: key)
    }

    /// The dashboard's router over `configuration`, as `funnel dashboard` wires it, at ``now``
    /// (with `cache`, as `--cache-events` wires it).
    static func application(
        _ configuration: PostgresConfiguration, limiter: SignInLimiter = SignInLimiter(),
        viewers settings: ViewerAuthenticator.Settings = .init(), cookieSecure: Bool = false,
        cache: SessionCache? = nil
    ) -> some ApplicationProtocol {
        var logger = Logger(label: "test.dashboard")
        logger.logLevel = .critical
        let dashboard = Dashboard(
            data: DashboardData(database: configuration, cache: cache),
            viewers: ViewerAuthenticator(database: configuration, settings: settings), limiter: limiter,
            logger: logger, clock: { now }, cookieSecure: cookieSecure)
        return Application(router: DashboardRouter.make(dashboard))
    }

    static func basic(_ name: String, _ secret: String) -> String {
        "Basic " + Data("\(name):\(secret)".utf8).base64EncodedString()
    }
}
