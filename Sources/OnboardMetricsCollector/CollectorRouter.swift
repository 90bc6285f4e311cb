import Foundation
import HTTPTypes
import Hummingbird
import OnboardMetricsStore
import Prometheus

/// The collector's routes on Hummingbird: the HTTP side only; ``Collector`` decides.
package enum CollectorRouter {
    package static func make(_ collector: Collector, metrics: PrometheusCollectorRegistry) -> Router<
        BasicRequestContext
    > {
        let router = Router()
        router.post("/v1/batch") { request, _ -> Response in
            // The native batch, or Segment's: the body tells them apart.
            let started = Date()
            let key: AppKey?
            switch await checkHeader(request, collector) {
            case .refused(let answer): return response(answer)
            case .allowed(let byHeader): key = byHeader
            }
            let body: [UInt8]
            switch await readBody(request, collector, key: key, since: started) {
            case .failure(let refusal): return response(refusal.answer)
            case .success(let bytes): body = bytes
            }
            if Collector.isSegmentBatch(body) {
                return response(
                    await collector.recordSegment(body: body, single: nil, key: key, since: started))
            }
            // Without a header: a native batch carries no key in its body, so this is the 401.
            let authorization: Collector.Authorization
            if let key { authorization = .allowed(key) } else { authorization = await collector.authorize(nil) }
            switch authorization {
            case .refused(let answer): return response(answer)
            case .allowed(let key): return response(await collector.record(body: body, key: key, since: started))
            }
        }
        EcosystemRoutes.add(to: router, collector)
        router.get("/healthz") { _, _ in response(collector.healthAnswer()) }
        // What swift-metrics recorded (collector and recorder), in Prometheus's text format.
        router.get("/metrics") { _, _ in
            response(
                Collector.Answer(
                    status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
                    body: Data(metrics.emitToBuffer())))
        }
        // A known path asked with another method is answered 405 with the methods it takes
        // (RFC 9110 §15.5.6), so a client sees what it got wrong; unknown paths stay 404.
        for path in ["/v1/batch"] + EcosystemRoutes.segmentPaths + EcosystemRoutes.capturePaths {
            refuseOtherMethods(router, path: path, allowed: .post)
        }
        for path in ["/healthz", "/metrics"] { refuseOtherMethods(router, path: path, allowed: .get) }
        return router
    }

    private static func refuseOtherMethods(
        _ router: Router<BasicRequestContext>, path: String, allowed: HTTPRequest.Method
    ) {
        let others: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete]
        for method in others where method != allowed {
            router.on(RouterPath(path), method: method) { _, _ -> Response in
                let body = Data(#"{"error":{"code":"method_not_allowed","message":"use \#(allowed.rawValue)"}}"#.utf8)
                return response(
                    Collector.Answer(
                        status: 405,
                        headers: [("Allow", allowed.rawValue), ("Content-Type", "application/json")],
                        body: method == .head ? Data() : body))
            }
        }
    }

    /// The outcome of checking a request's `Authorization` header, when it has one.
    enum HeaderCheck {
        /// Go on, with the key a header named (`nil` without a header: the body must name one).
        case allowed(AppKey?)
        case refused(Collector.Answer)
    }

    /// Checks the `Authorization` header (Bearer, or Basic with the key as user) before the body
    /// is read; a request without one may carry its key in the body (Segment, PostHog).
    static func checkHeader(_ request: Request, _ collector: Collector) async -> HeaderCheck {
        guard let header = request.headers[.authorization] else { return .allowed(nil) }
        switch await collector.authorize(header) {
        case .refused(let answer): return .refused(answer)
        case .allowed(let key): return .allowed(key)
        }
    }

    /// The body, read up to the limit and decoded (`Content-Encoding`, or `encoding` when given).
    static func readBody(
        _ request: Request, _ collector: Collector, key: AppKey?, encoding: String? = nil, since started: Date
    ) async -> Result<[UInt8], Collector.RefusedBody> {
        let limit = collector.configuration.maximumBodyBytes
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            return .failure(.init(answer: collector.bodyTooLarge(key: key, since: started)))
        }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: limit)
        } catch {
            return .failure(.init(answer: collector.bodyTooLarge(key: key, since: started)))
        }
        return collector.decodeBody(
            Array(body.readableBytesView), encoding: encoding ?? request.headers[.contentEncoding], since: started)
    }

    static func response(_ answer: Collector.Answer) -> Response {
        var headers = HTTPFields()
        for (name, value) in answer.headers {
            if let field = HTTPField.Name(name) { headers[field] = value }
        }
        return Response(
            status: HTTPResponse.Status(code: answer.status), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
    }
}
