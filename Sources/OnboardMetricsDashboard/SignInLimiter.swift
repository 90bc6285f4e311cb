import Foundation
import NIOConcurrencyHelpers

/// Failed sign-ins per client address, as a token bucket (the collector's ``RateLimiter`` idea,
/// keyed by address): each failure takes a token; with none left, sign-ins from that address are
/// refused until one has come back. Successful sign-ins take nothing, so a viewer who types the
/// secret right is never slowed. Pure apart from its lock: the caller passes the time.
package final class SignInLimiter: Sendable {
    private struct Bucket: Sendable {
        var tokens: Double
        var updated: Date
    }

    /// Failures an address may make on average per second once its burst is spent.
    package let rate: Double
    /// Failures an address may make at once after a quiet spell.
    package let burst: Double
    private let buckets = NIOLockedValueBox<[String: Bucket]>([:])

    /// A limiter; by default 10 failures at once, then one a minute.
    package init(rate: Double = 1.0 / 60, burst: Double = 10) {
        self.rate = max(rate, 1e-6)
        self.burst = max(1, burst)
    }

    /// `nil` when `client` may try to sign in at `now`; else the seconds until it may.
    package func retryAfter(client: String, now: Date) -> TimeInterval? {
        buckets.withLockedValue { buckets in
            guard var bucket = buckets[client] else { return nil }
            refill(&bucket, now: now)
            buckets[client] = bucket
            return bucket.tokens >= 1 ? nil : (1 - bucket.tokens) / rate
        }
    }

    /// Counts a failed sign-in of `client` at `now`.
    package func recordFailure(client: String, now: Date) {
        buckets.withLockedValue { buckets in
            var bucket = buckets[client] ?? Bucket(tokens: burst, updated: now)
            refill(&bucket, now: now)
            bucket.tokens = max(0, bucket.tokens - 1)
            buckets[client] = bucket
            // Addresses back to a full bucket say nothing: forget them, so the table stays small.
            if buckets.count > 10_000 {
                buckets = buckets.filter { _, value in
                    min(self.burst, value.tokens + max(0, now.timeIntervalSince(value.updated)) * self.rate)
                        < self.burst
                }
            }
        }
    }

    private func refill(_ bucket: inout Bucket, now: Date) {
        let elapsed = max(0, now.timeIntervalSince(bucket.updated))
        bucket.tokens = min(burst, bucket.tokens + elapsed * rate)
        bucket.updated = now
    }
}
