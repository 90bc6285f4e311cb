import Foundation
import NIOConcurrencyHelpers

/// A token bucket per key: `rate` requests a second on average, bursts of up to `burst`.
///
/// Pure apart from its lock: the caller passes the time, so tests need no clock.
package final class RateLimiter: Sendable {
    private struct Bucket: Sendable {
        var tokens: Double
        var updated: Date
    }

    /// Requests a second each key may make on average.
    package let rate: Double
    /// Requests a key may make at once after a quiet spell.
    package let burst: Double
    private let buckets = NIOLockedValueBox<[Int64: Bucket]>([:])

    /// A limiter; a `rate` of 0 or less lets everything through.
    package init(rate: Double, burst: Double) {
        self.rate = rate
        self.burst = max(1, burst)
    }

    /// Takes a token for `key` at `now`.
    /// - Returns: `nil` when the request may go ahead; else the seconds until a token is free
    ///   (the `Retry-After`), with nothing taken.
    package func acquire(key: Int64, now: Date) -> TimeInterval? {
        guard rate > 0 else { return nil }
        let (rate, burst) = (rate, burst)
        return buckets.withLockedValue { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: burst, updated: now)
            let elapsed = max(0, now.timeIntervalSince(bucket.updated))
            bucket.tokens = min(burst, bucket.tokens + elapsed * rate)
            bucket.updated = now
            defer { buckets[key] = bucket }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return nil
            }
            return (1 - bucket.tokens) / rate
        }
    }
}
