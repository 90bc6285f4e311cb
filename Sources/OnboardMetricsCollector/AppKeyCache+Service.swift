import Foundation
import ServiceLifecycle

/// The key cache as a service of a `ServiceGroup` (`funnel serve`): it reads the keys again every
/// `refreshInterval` in the background, so requests seldom wait for the database, until graceful
/// shutdown. (Requests still read the keys themselves when the copy is older than that or a key
/// is unknown: see ``key(for:now:)``.)
extension AppKeyCache: Service {
    package func run() async throws {
        let interval = refreshInterval
        await cancelWhenGracefulShutdown { [self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(interval))
                guard !Task.isCancelled else { break }
                // A failure is logged and remembered by the cache; requests then keep the known keys.
                try? await refresh(now: Date())
            }
        }
    }
}
