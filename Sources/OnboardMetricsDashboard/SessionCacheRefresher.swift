import Foundation
import Logging
import OnboardMetricsPostgres
import OnboardMetricsReader
import ServiceLifecycle

/// Brings the dashboard's kept sessions up to date every `interval` in the background, until
/// graceful shutdown: new events are then read (their traces built, their sessions decoded)
/// before someone opens a page, not while they wait for it. A page opened in between still
/// brings them up to date itself, so it is never older than the database.
struct SessionCacheRefresher: Service {
    let cache: SessionCache
    let interval: Double
    let logger: Logger

    func run() async throws {
        let cache = cache
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(interval))
                guard !Task.isCancelled else { break }
                do {
                    _ = try await BlockingIO.run { try cache.refreshKept() }
                } catch {
                    // Unreachable: the kept sessions stay, and catch up once it answers. A failed
                    // read of the traces dropped them; the next page reads them again.
                    logger.warning("refreshing the kept sessions failed: \(error)")
                }
            }
        }
    }
}
