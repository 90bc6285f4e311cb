import Foundation
import OnboardMetricsSDK

// The one FoundationNetworking user of the package: on Linux it and libcurl bring nine shared
// libraries, which cost every `funnel` command about 2 ms at start (BENCHMARKS.md).
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The ``BatchPoster`` that ``HTTPTransport`` uses by default: Foundation's `URLSession`, with an
/// ephemeral session of its own (no cookies, no cache, no stored credentials).
package final class URLSessionBatchPoster: BatchPoster, Sendable {
    /// `{endpoint}/v1/batch`.
    package let url: URL
    private let timeout: TimeInterval
    // URLSession is thread-safe (and Sendable).
    private let session: URLSession

    /// Creates a poster for the collector at `endpoint`.
    /// - Parameters:
    ///   - endpoint: the collector's base URL, e.g. `https://collector.example.com`.
    ///   - timeout: seconds a request may go without progress before it fails.
    package init(endpoint: URL, timeout: TimeInterval) {
        url = endpoint.appendingPathComponent("v1/batch")
        self.timeout = timeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        // A whole exchange (upload of up to a batch, then the answer) gets twice the idle timeout.
        configuration.timeoutIntervalForResource = timeout * 2
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    deinit { session.finishTasksAndInvalidate() }

    /// The request for one batch: method, URL, headers and body as the wire protocol fixes them.
    package func request(body: Data, appKey: String) -> URLRequest {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("Bearer \(appKey)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        return request
    }

    package func post(body: Data, appKey: String) async throws -> Reply {
        let (data, response) = try await session.data(for: request(body: body, appKey: appKey))
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            guard let name = key as? String else { continue }
            headers[name.lowercased()] = value as? String ?? "\(value)"
        }
        return (http.statusCode, headers, data)
    }
}
