import Foundation
import HTTPTypes
import Hummingbird
import OnboardMetricsFormats
import OnboardMetricsStore

/// Segment's single-call endpoints and PostHog's capture endpoints (Segment's `/v1/batch` shares
/// the native route, see ``CollectorRouter``).
enum EcosystemRoutes {
    /// PostHog's capture paths.
    static let capturePaths = ["/batch", "/capture", "/e", "/i/v0/e", "/track"]
    /// Segment's single-call paths.
    static var segmentPaths: [String] { AnalyticsMessage.CallType.allCases.map { "/v1/\($0.rawValue)" } }

    static func add(to router: Router<BasicRequestContext>, _ collector: Collector) {
        for type in AnalyticsMessage.CallType.allCases {
            router.post("/v1/\(type.rawValue)") { request, _ -> Response in
                let started = Date()
                let key: AppKey?
                switch await CollectorRouter.checkHeader(request, collector) {
                case .refused(let answer): return CollectorRouter.response(collector.counted(.segment, answer))
                case .allowed(let byHeader): key = byHeader
                }
                switch await CollectorRouter.readBody(request, collector, key: key, since: started) {
                case .failure(let refusal): return CollectorRouter.response(collector.counted(.segment, refusal.answer))
                case .success(let body):
                    return CollectorRouter.response(
                        await collector.recordSegment(body: body, single: type, key: key, since: started))
                }
            }
        }
        // PostHog's SDKs post to these (Hummingbird's router matches them with a trailing slash too).
        for path in capturePaths {
            router.post(RouterPath(path)) { request, _ -> Response in await capture(request, collector) }
        }
    }

    private static func capture(_ request: Request, _ collector: Collector) async -> Response {
        let started = Date()
        let key: AppKey?
        switch await CollectorRouter.checkHeader(request, collector) {
        case .refused(let answer): return CollectorRouter.response(collector.counted(.posthog, answer))
        case .allowed(let byHeader): key = byHeader
        }
        // posthog-js names the body's compression in the query instead of Content-Encoding.
        var encoding: String?
        if let compression = request.uri.queryParameters["compression"].map(String.init) {
            switch compression.lowercased() {
            case "gzip", "gzip-js": encoding = "gzip"
            case "", "none", "identity": encoding = "identity"
            default: encoding = compression
            }
        }
        switch await CollectorRouter.readBody(request, collector, key: key, encoding: encoding, since: started) {
        case .failure(let refusal): return CollectorRouter.response(collector.counted(.posthog, refusal.answer))
        case .success(let body):
            return CollectorRouter.response(
                await collector.recordPostHog(body: body, key: key, since: started))
        }
    }
}
