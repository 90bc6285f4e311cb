import NIOConcurrencyHelpers
import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Caps on a server's open connections: at most ``perClient`` from one client address (an IPv6
/// client by its /64, ``ClientAddress/bucket(of:)``) and ``total`` in all. A connection over a cap
/// is answered 503 and closed as soon as it is accepted, so it holds a file descriptor for
/// moments only: one client cannot fill the process's file limit or take every place, and the
/// others (a health check among them) still get in while it holds its ``perClient``.
///
/// One limiter is shared by every connection of a server (``handlers(trustingProxy:)`` gives each
/// its handler); the counts are behind a lock because connections live on several event loops.
package final class ConnectionLimiter: Sendable {
    private struct Counts: Sendable {
        var byClient: [String: Int] = [:]
        var total = 0
        var refused = 0
    }

    /// Connections one client may hold open at once.
    package let perClient: Int
    /// Connections the server holds open at once.
    package let total: Int
    private let counts = NIOLockedValueBox(Counts())

    package init(perClient: Int, total: Int) {
        self.perClient = max(1, perClient)
        self.total = max(1, total)
    }

    /// Takes a place for a new connection of `client`; false (nothing taken) when either cap is reached.
    package func open(_ client: String) -> Bool {
        let key = ClientAddress.bucket(of: client)
        return counts.withLockedValue { counts in
            guard counts.total < total, counts.byClient[key, default: 0] < perClient else {
                counts.refused += 1
                return false
            }
            counts.total += 1
            counts.byClient[key, default: 0] += 1
            return true
        }
    }

    /// Gives back the place of a closed connection of `client`.
    package func close(_ client: String) {
        let key = ClientAddress.bucket(of: client)
        counts.withLockedValue { counts in
            counts.total = max(0, counts.total - 1)
            let left = counts.byClient[key, default: 0] - 1
            counts.byClient[key] = left > 0 ? left : nil
        }
    }

    /// Moves an open connection's place from `old` to `new` (its request named the client behind
    /// a trusted proxy); false, and the place left with `old`, when `new` holds its ``perClient``.
    package func move(from old: String, to new: String) -> Bool {
        let (from, to) = (ClientAddress.bucket(of: old), ClientAddress.bucket(of: new))
        guard from != to else { return true }
        return counts.withLockedValue { counts in
            guard counts.byClient[to, default: 0] < perClient else {
                counts.refused += 1
                return false
            }
            counts.byClient[to, default: 0] += 1
            let left = counts.byClient[from, default: 0] - 1
            counts.byClient[from] = left > 0 ? left : nil
            return true
        }
    }

    /// Connections open now: in all, and of `client`.
    package func openCount(of client: String? = nil) -> Int {
        let key = client.map(ClientAddress.bucket(of:))
        return counts.withLockedValue { counts in key.map { counts.byClient[$0, default: 0] } ?? counts.total }
    }

    /// The process's soft limit of open files (`ulimit -n`); `nil` when unlimited or unknown.
    package static func fileLimit() -> Int? {
        var limit = rlimit()
        #if canImport(Glibc)
            let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
            let resource = RLIMIT_NOFILE
        #endif
        // RLIM_INFINITY is all ones; anything past Int's range is as good as unlimited.
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < rlim_t(Int.max) else { return nil }
        return Int(limit.rlim_cur)
    }

    /// Connections refused so far (at accept, or by a forwarded client over its cap).
    package var refusedCount: Int { counts.withLockedValue { $0.refused } }

    /// The handler for one connection, to go after the HTTP decoder with the server's other
    /// channel handlers (before ``ConnectionTimeouts/handlers()``). `trustingProxy`: a request's
    /// forwarded address (``ForwardedClient``) is its client, not the proxy's socket.
    package func handlers(trustingProxy: Bool) -> [any RemovableChannelHandler] {
        [ConnectionLimitHandler(limiter: self, trustingProxy: trustingProxy)]
    }
}
