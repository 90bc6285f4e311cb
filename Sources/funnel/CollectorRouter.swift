import Foundation
import HTTPTypes
import Hummingbird
import OnboardMetrics

/// The collector's routes on Hummingbird: the HTTP side only; ``Collector`` decides.
enum CollectorRouter {
    static func make(_ collector: Collector) -> Router<BasicRequestContext> {
        let router = Router()
        router.post("/v1/batch") { request, _ -> Response in
            let started = Date()
            let refusal: Collector.Answer? =
                switch await collector.authorize(request.headers[.authorization]) {
                case .refused(let answer): answer
                case .allowed: nil
                }
            if let refusal { return response(refusal) }
            let limit = collector.configuration.maximumBodyBytes
            if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
                return response(collector.bodyTooLarge(since: started))
            }
            let body: ByteBuffer
            do {
                body = try await request.body.collect(upTo: limit)
            } catch {
                return response(collector.bodyTooLarge(since: started))
            }
            return response(await collector.record(body: Array(body.readableBytesView), since: started))
        }
        router.get("/healthz") { _, _ in response(collector.healthAnswer()) }
        router.get("/metrics") { _, _ in response(collector.metricsAnswer()) }
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
