import Foundation
import Testing

@testable import OnboardMetricsDashboard

/// Failed sign-ins per client address: a burst, then one per interval; addresses apart;
/// successes cost nothing; attempts in flight at once take a token each. The expected waits are
/// worked out by hand from the token bucket.
@Suite struct SignInLimiterTests {
    @Test func aBurstOfFailuresThenOnePerInterval() {
        let limiter = SignInLimiter(rate: 1.0 / 60, burst: 3)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for _ in 0..<3 {
            #expect(limiter.retryAfter(client: "10.0.0.1", now: start) == nil)
            #expect(limiter.attempt(client: "10.0.0.1", now: start) == nil)
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

    /// An IPv6 host is usually given a /64: every address of it shares one bucket, so it cannot
    /// take a fresh burst per address. IPv4, also written as IPv6, counts by address.
    @Test func ipv6AddressesCountByTheirSlash64() {
        let limiter = SignInLimiter(rate: 1.0 / 60, burst: 2)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(limiter.attempt(client: "2001:db8:1:2::1", now: now) == nil)
        #expect(limiter.attempt(client: "2001:DB8:1:2:ffff:0:0:7", now: now) == nil)
        #expect(limiter.attempt(client: "2001:db8:1:2:abcd::9", now: now) != nil)
        #expect(limiter.retryAfter(client: "2001:db8:1:3::1", now: now) == nil)
        #expect(SignInLimiter.bucket(of: "2001:db8:1:2:abcd::9") == "2001:db8:1:2::/64")
        #expect(SignInLimiter.bucket(of: "::ffff:192.0.2.7") == "192.0.2.7")
        #expect(SignInLimiter.bucket(of: "192.0.2.7") == "192.0.2.7")
        #expect(SignInLimiter.bucket(of: "unknown") == "unknown")
        #expect(limiter.attempt(client: "::ffff:192.0.2.7", now: now) == nil)
        #expect(limiter.attempt(client: "192.0.2.7", now: now) == nil)
        #expect(limiter.attempt(client: "192.0.2.7", now: now) != nil)
        #expect(limiter.attempt(client: "192.0.2.8", now: now) == nil)
    }

    @Test func anAddressThatNeverFailedIsNeverHeldUp() {
        let limiter = SignInLimiter(rate: 1.0 / 60, burst: 1)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for second in 0..<100 {
            #expect(limiter.retryAfter(client: "::1", now: now.addingTimeInterval(Double(second))) == nil)
        }
    }

    /// Attempts checked at once (bcrypt takes about 250 ms) each hold a token: beyond the burst
    /// they are refused before their check, and the ones that succeed give theirs back.
    @Test func attemptsInFlightAtOnceTakeATokenEach() {
        let limiter = SignInLimiter(rate: 1.0 / 60, burst: 3)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let allowed = (0..<10).filter { _ in limiter.attempt(client: "10.0.0.1", now: now) == nil }
        #expect(allowed.count == 3)
        // Two of them succeed: two tokens back, the failure keeps its own.
        limiter.succeeded(client: "10.0.0.1", now: now)
        limiter.succeeded(client: "10.0.0.1", now: now)
        #expect(limiter.attempt(client: "10.0.0.1", now: now) == nil)
        #expect(limiter.attempt(client: "10.0.0.1", now: now) == nil)
        #expect(limiter.attempt(client: "10.0.0.1", now: now) != nil)
        // A success never fills past the burst.
        let fresh = SignInLimiter(rate: 1.0 / 60, burst: 1)
        fresh.succeeded(client: "::1", now: now)
        #expect(fresh.attempt(client: "::1", now: now) == nil)
        #expect(fresh.attempt(client: "::1", now: now) != nil)
    }
}
