import Foundation
import NIOConcurrencyHelpers
import OnboardMetricsHTTP

/// Failed sign-ins per client address, as a token bucket (the collector's ``RateLimiter`` idea,
/// keyed by address): each attempt takes a token before its check and a success gives it back, so
/// only failures keep them; with none left, sign-ins from that address are refused until one has
/// come back. A viewer who types the secret right is never slowed. Pure apart from its lock: the
/// caller passes the time.
///
/// Taken before the check, not after a failure: the check (bcrypt) takes about 250 ms, and with
/// the failure counted only once it was known, every attempt sent meanwhile got through (a review
/// sent 200 at once against a burst of 10). Now at most the burst is checked at once.
///
/// An IPv6 address counts by its /64 network (``bucket(of:)``): one host is usually given a whole
/// /64, and keyed by address it could try 2^64 addresses' bursts.
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
        let client = Self.bucket(of: client)
        return buckets.withLockedValue { buckets in
            guard var bucket = buckets[client] else { return nil }
            refill(&bucket, now: now)
            buckets[client] = bucket
            return bucket.tokens >= 1 ? nil : (1 - bucket.tokens) / rate
        }
    }

    /// Takes a token for a sign-in attempt of `client` at `now`: `nil` when it may go ahead (the
    /// token given back by ``succeeded(client:now:)``), else the seconds until it may.
    package func attempt(client: String, now: Date) -> TimeInterval? {
        let client = Self.bucket(of: client)
        return buckets.withLockedValue { buckets in
            var bucket = buckets[client] ?? Bucket(tokens: burst, updated: now)
            refill(&bucket, now: now)
            guard bucket.tokens >= 1 else {
                buckets[client] = bucket
                return (1 - bucket.tokens) / rate
            }
            bucket.tokens -= 1
            buckets[client] = bucket
            // Addresses back to a full bucket say nothing: forget them, so the table stays small.
            if buckets.count > 10_000 {
                buckets = buckets.filter { _, value in
                    min(self.burst, value.tokens + max(0, now.timeIntervalSince(value.updated)) * self.rate)
                        < self.burst
                }
            }
            return nil
        }
    }

    /// Gives back the token of `client`'s attempt that succeeded (or could not be checked).
    package func succeeded(client: String, now: Date) {
        let client = Self.bucket(of: client)
        buckets.withLockedValue { buckets in
            guard var bucket = buckets[client] else { return }
            refill(&bucket, now: now)
            bucket.tokens = min(burst, bucket.tokens + 1)
            buckets[client] = bucket
        }
    }

    /// The bucket an address counts in (``ClientAddress/bucket(of:)``, which the connection caps
    /// count by too): an IPv4 address itself, an IPv6 address its /64 network.
    static func bucket(of client: String) -> String {
        ClientAddress.bucket(of: client)
    }

    private func refill(_ bucket: inout Bucket, now: Date) {
        let elapsed = max(0, now.timeIntervalSince(bucket.updated))
        bucket.tokens = min(burst, bucket.tokens + elapsed * rate)
        bucket.updated = now
    }
}
