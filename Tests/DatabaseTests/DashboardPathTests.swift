import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import OnboardMetricsDashboard
@testable import OnboardMetricsPostgres
@testable import OnboardMetricsRendering
@testable import OnboardMetricsSDK
@testable import OnboardMetricsStore

/// Ids that are not plain ASCII words (issue 59, P3-5): the home page links to a flow named
/// `my flow` or `café` percent-encoded, and the routes decode the path segment, so the link
/// answers 200 (it was 404: the router handed over `my%20flow` as it came).
@Suite struct DashboardPathTests {
    @Test(arguments: [("my flow", "space"), ("café", "accent"), ("100% done", "percent")])
    func theHomePagesLinkToAFlowWithAnUnusualIDAnswers(_ id: String, _ database: String) async throws {
        let configuration = try await TestDatabase.migrated("dashboard_paths_" + database)
        let flow = FlowDefinition(id: id, version: 1, steps: [Step("welcome"), Step("done")])
        let experiment = try ExperimentDefinition(key: id, variants: ["control", "treatment"])
        let secret = try await TestDatabase.withConnection(configuration) { connection in
            try FlowStore().save(flow, on: connection)
            try ExperimentStore().save(experiment, on: connection)
            return try ViewerStore(cost: 4).create(name: "ana", on: connection).secret
        }
        let app = DashboardFixture.application(configuration)
        let viewer: HTTPFields = [.authorization: DashboardFixture.basic("ana", secret)]
        try await app.test(.router) { client in
            let home = try await client.execute(uri: "/", method: .get, headers: viewer) { response in
                #expect(response.status == .ok)
                return String(buffer: response.body)
            }
            for base in ["/flows/", "/experiments/"] {
                let link = try #require(Self.href(in: home, startingWith: base), "no link to \(base) in the home page")
                #expect(link.utf8.allSatisfy { $0 < 0x80 && $0 != 0x20 }, "\(link) is not percent-encoded")
                try await client.execute(uri: link, method: .get, headers: viewer) { response in
                    #expect(response.status == .ok, "\(link)")
                    #expect(String(buffer: response.body).contains(HTML.escape(id)), "\(link)")
                }
            }
            let flowLink = try #require(Self.href(in: home, startingWith: "/flows/"))
            try await client.execute(uri: flowLink + "/trends?format=json", method: .get, headers: viewer) {
                #expect($0.status == .ok)
            }
            // An escape that is not UTF-8 is the client's mistake, named.
            try await client.execute(uri: "/flows/caf%E9", method: .get, headers: viewer) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body).contains("percent-encoding"))
            }
        }
    }

    /// The first `href` of `html` that starts with `prefix`, its HTML escapes undone.
    static func href(in html: String, startingWith prefix: String) -> String? {
        guard let range = html.range(of: "href=\"\(prefix)") else { return nil }
        let start = html.index(range.lowerBound, offsetBy: "href=\"".count)
        let value = html[start...].prefix { $0 != "\"" }
        return value.replacingOccurrences(of: "&amp;", with: "&")
    }
}
