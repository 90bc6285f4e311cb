import Foundation
import HTTPTypes
import Hummingbird
import OnboardMetrics
import Prometheus

/// The collector's routes on Hummingbird: the HTTP side only; ``Collector`` decides.
enum CollectorRouter {
    static func make(_ collector: Collector, metrics: PrometheusCollectorRegistry) -> Router<BasicRequestContext> {
        let router = Router()
        router.post("/v1/batch") { request, _ -> Response in
            let started = Date()
            let key: AppKey
            switch await collector.authorize(request.headers[.authorization]) {
            case .refused(let answer): return response(answer)
            case .allowed(let allowed): key = allowed
            }
            let limit = collector.configuration.maximumBodyBytes
            if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
                return response(collector.bodyTooLarge(key: key, since: started))
            }
            let body: ByteBuffer
            do {
                body = try await request.body.collect(upTo: limit)
            } catch {
                return response(collector.bodyTooLarge(key: key, since: started))
            }
            return response(await collector.record(body: Array(body.readableBytesView), key: key, since: started))
        }
        router.get("/healthz") { _, _ in response(collector.healthAnswer()) }
        // What swift-metrics recorded (collector and recorder), in Prometheus's text format.
        router.get("/metrics") { _, _ in
            response(
                Collector.Answer(
                    status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
                    body: Data(metrics.emitToBuffer())))
        }
        return router
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
