import Foundation
import Testing

@testable import OnboardMetricsCollector
@testable import OnboardMetricsSDK

/// The token bucket worked by hand: 2 requests a second, bursts of 3.
@Suite struct RateLimiterTests {
    @Test func burstThenRateThenRefill() {
        let limiter = RateLimiter(rate: 2, burst: 3)
        let start = Date(timeIntervalSince1970: 1_000)
        // Three at once pass (the burst); the fourth must wait half a second for the next token.
        #expect((0..<3).allSatisfy { _ in limiter.acquire(key: 1, now: start) == nil })
        let wait = limiter.acquire(key: 1, now: start)
        #expect(wait.map { abs($0 - 0.5) < 1e-9 } == true)
        // 0.25 s later half a token has come back: 0.25 s still to wait.
        let later = limiter.acquire(key: 1, now: start.addingTimeInterval(0.25))
        #expect(later.map { abs($0 - 0.25) < 1e-9 } == true)
        #expect(limiter.acquire(key: 1, now: start.addingTimeInterval(0.5)) == nil)
        // Another key has a bucket of its own.
        #expect(limiter.acquire(key: 2, now: start) == nil)
        // A long quiet spell refills to the burst, not beyond.
        let quiet = start.addingTimeInterval(3_600)
        #expect((0..<3).allSatisfy { _ in limiter.acquire(key: 1, now: quiet) == nil })
        #expect(limiter.acquire(key: 1, now: quiet) != nil)
    }

    /// A cost over what is left goes ahead once a token is left, and the debt is waited out:
    /// 128 tokens a second, bursts of 256, batches of 1,024 events (binary fractions, so the
    /// sums are exact).
    @Test func largeCostGoesIntoDebt() {
        let limiter = RateLimiter(rate: 128, burst: 256)
        let start = Date(timeIntervalSince1970: 1_024)
        #expect(limiter.acquire(key: 1, now: start, cost: 1_024) == nil)
        // 256 - 1,024 = -768 left: (1 + 768) / 128 s until one token is back, nothing taken meanwhile.
        #expect(limiter.acquire(key: 1, now: start, cost: 1) == 769.0 / 128)
        #expect(limiter.acquire(key: 1, now: start.addingTimeInterval(6), cost: 1) == 1.0 / 128)
        var now = start.addingTimeInterval(769.0 / 128)
        #expect(limiter.acquire(key: 1, now: now, cost: 1_024) == nil)
        // Then each batch of 1,024 waits out its 8 s of debt: `rate` tokens a second.
        for _ in 0..<10 {
            #expect(limiter.acquire(key: 1, now: now.addingTimeInterval(7.5), cost: 1_024) == 0.5)
            now = now.addingTimeInterval(8)
            #expect(limiter.acquire(key: 1, now: now, cost: 1_024) == nil)
        }
        #expect(now.timeIntervalSince(start) == 769.0 / 128 + 80)
    }

    /// The limiter's wait as `Retry-After`: whole seconds, at least 1, at most a day, also when a
    /// tiny rate makes the wait too long for an `Int` (it trapped before).
    @Test func aWaitBecomesWholeSecondsFromOneToADay() {
        let limiter = RateLimiter(rate: 1e-300, burst: 1)
        let start = Date(timeIntervalSince1970: 1_000)
        #expect(limiter.acquire(key: 1, now: start, cost: 5) == nil)
        let wait = limiter.acquire(key: 1, now: start)
        #expect(wait.map { $0 > 1e300 } == true)
        #expect(wait.map(Collector.retryAfter) == 86_400)
        #expect(Collector.retryAfter(0.01) == 1 && Collector.retryAfter(2.2) == 3)
    }

    @Test func zeroRateIsNoLimit() {
        let limiter = RateLimiter(rate: 0, burst: 1)
        #expect((0..<1_000).allSatisfy { _ in limiter.acquire(key: 1, now: Date(timeIntervalSince1970: 0)) == nil })
    }
}
