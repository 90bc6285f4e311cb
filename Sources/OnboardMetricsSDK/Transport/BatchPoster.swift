import Foundation

/// Sends one `POST /v1/batch` request for ``HTTPTransport`` and hands back the server's answer,
/// whatever its status. Behind a protocol so that the transport's retry, split and drop rules can
/// be tested with a scripted poster instead of a server.
package protocol BatchPoster: Sendable {
    /// The HTTP status, the response headers (names lowercased) and the response body.
    typealias Reply = (status: Int, headers: [String: String], body: Data)

    /// Posts `body` (the batch JSON) with `Authorization: Bearer {appKey}`.
    /// - Returns: the server's answer, whatever its status.
    /// - Throws: when no HTTP answer arrived (network error, timeout).
    func post(body: Data, appKey: String) async throws -> Reply
}
