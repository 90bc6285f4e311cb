import Foundation
import NIOConcurrencyHelpers

/// A token bucket per key: `rate` tokens a second on average, bursts of up to `burst`.
///
/// The collector keeps two: one counting a key's requests, one counting its events. A request
/// may take more tokens than the bucket holds (a batch of 1,000 events against what is left):
/// it goes ahead whenever one token is left, and the bucket goes into debt, which later requests
/// wait out. So a batch of any size can pass, and a key's average stays at `rate`.
///
/// Pure apart from its lock: the caller passes the time, so tests need no clock.
package final class RateLimiter: Sendable {
    private struct Bucket: Sendable {
        var tokens: Double
        var updated: Date
    }

    /// Tokens a second each key may take on average.
    package let rate: Double
    /// Tokens a key may take at once after a quiet spell.
    package let burst: Double
    private let buckets = NIOLockedValueBox<[Int64: Bucket]>([:])

    /// A limiter; a `rate` of 0 or less lets everything through.
    package init(rate: Double, burst: Double) {
        self.rate = rate
        self.burst = max(1, burst)
    }

    /// Takes `cost` tokens for `key` at `now`, going into debt when fewer are left.
    /// - Returns: `nil` when the request may go ahead; else the seconds until a token is free
    ///   (the `Retry-After`), with nothing taken.
    package func acquire(key: Int64, now: Date, cost: Double = 1) -> TimeInterval? {
        guard rate > 0 else { return nil }
        let (rate, burst) = (rate, burst)
        return buckets.withLockedValue { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: burst, updated: now)
            let elapsed = max(0, now.timeIntervalSince(bucket.updated))
            bucket.tokens = min(burst, bucket.tokens + elapsed * rate)
            bucket.updated = now
            defer { buckets[key] = bucket }
            if bucket.tokens >= 1 {
                bucket.tokens -= max(1, cost)
                return nil
            }
            return (1 - bucket.tokens) / rate
        }
    }
}
