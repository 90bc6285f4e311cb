import Testing

@testable import OnboardMetricsHTTP

/// The connection caps' counts: per client (an IPv6 one by its /64), in all, places given back,
/// and a place moved to the client a trusted proxy named.
@Suite struct ConnectionLimiterTests {
    @Test func aClientAndTheServerAreCappedAndClosedPlacesComeBack() {
        let limiter = ConnectionLimiter(perClient: 2, total: 3)
        #expect(limiter.open("10.0.0.1") && limiter.open("10.0.0.1"))
        #expect(!limiter.open("10.0.0.1"))
        #expect(limiter.open("10.0.0.2"))
        // Three open: the total is reached for everyone.
        #expect(!limiter.open("10.0.0.3"))
        #expect(limiter.openCount() == 3 && limiter.openCount(of: "10.0.0.1") == 2)
        limiter.close("10.0.0.1")
        #expect(limiter.open("10.0.0.3"))
        #expect(limiter.refusedCount == 2)
    }

    @Test func ipv6ClientsCountByTheirSlash64() {
        let limiter = ConnectionLimiter(perClient: 2, total: 100)
        #expect(limiter.open("2001:db8:1:2::1") && limiter.open("2001:db8:1:2::ffff"))
        #expect(!limiter.open("2001:db8:1:2:abcd::9"))
        #expect(limiter.open("2001:db8:1:3::1"))
        #expect(limiter.open("::ffff:192.0.2.7") && limiter.open("192.0.2.7") && !limiter.open("192.0.2.7"))
    }

    @Test func aPlaceMovesToTheForwardedClientUnlessItIsFull() {
        let limiter = ConnectionLimiter(perClient: 1, total: 10)
        #expect(limiter.open("10.9.9.9") && limiter.open("10.9.9.9") == false)
        #expect(limiter.move(from: "10.9.9.9", to: "203.0.113.1"))
        #expect(limiter.openCount(of: "10.9.9.9") == 0 && limiter.openCount(of: "203.0.113.1") == 1)
        #expect(limiter.open("10.9.9.9"))
        #expect(!limiter.move(from: "10.9.9.9", to: "203.0.113.1"))
        #expect(limiter.openCount(of: "10.9.9.9") == 1 && limiter.openCount() == 2)
    }
}
