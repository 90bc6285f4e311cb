import Foundation
import Testing

@testable import OnboardMetricsDashboard

/// Failed sign-ins per client address: a burst, then one per interval; addresses apart;
/// successes cost nothing. The expected waits are worked out by hand from the token bucket.
@Suite struct SignInLimiterTests {
    @Test func aBurstOfFailuresThenOnePerInterval() {
        let limiter = SignInLimiter(rate: 1.0 / 60, burst: 3)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for _ in 0..<3 {
            #expect(limiter.retryAfter(client: "10.0.0.1", now: start) == nil)
            limiter.recordFailure(client: "10.0.0.1", now: start)
        }
        // Burst spent: a whole token (60 s) is missing.
        let wait = limiter.retryAfter(client: "10.0.0.1", now: start)
        #expect(wait.map { abs($0 - 60) < 1e-9 } == true)
        // 45 s later a quarter of the token is still missing: 15 s.
        let later = limiter.retryAfter(client: "10.0.0.1", now: start.addingTimeInterval(45))
        #expect(later.map { abs($0 - 15) < 1e-9 } == true)
        // Another address is not affected.
        #expect(limiter.retryAfter(client: "10.0.0.2", now: start) == nil)
        // After a full interval, one more try.
        #expect(limiter.retryAfter(client: "10.0.0.1", now: start.addingTimeInterval(60)) == nil)
    }

    @Test func anAddressThatNeverFailedIsNeverHeldUp() {
        let limiter = SignInLimiter(rate: 1.0 / 60, burst: 1)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for second in 0..<100 {
            #expect(limiter.retryAfter(client: "::1", now: now.addingTimeInterval(Double(second))) == nil)
        }
    }
}
