import Foundation
import OnboardMetricsSDK

extension HTTPTransport {
    /// Starts a transport that posts with `URLSession`: opens the on-disk queue (sending what an
    /// earlier transport left there) and the worker thread.
    /// - Throws: `RecorderError` `.spool` when the queue folder cannot be created or another
    ///   transport or process uses it.
    public convenience init(configuration: Configuration) throws {
        try self.init(
            configuration: configuration,
            poster: URLSessionBatchPoster(endpoint: configuration.endpoint, timeout: configuration.requestTimeout))
    }
}
