import OnboardMetricsSDK

/// What one simulated user of `OnboardingApp life` does, decided from their number alone: every
/// launch of the install (the process may be killed at any moment and started again) makes the
/// same choices, so the truth file of a run is the plan played out, whatever the kills were.
struct LifePlan {
    /// The flow every simulated user goes through (examples/flows/health-study.json).
    static let flowID = "health-study"

    let user: Int
    /// About one user in ten says no to analytics: nothing of theirs may leave the device.
    let declines: Bool
    /// The step at which the user quits (about three in ten); nil for a user who completes.
    let quitStep: String?
    /// The step at which the user goes back once (about one in three), if they reach it.
    let backStep: String?
    /// The skippable steps the user skips.
    let skips: Set<String>
    let healthDataAvailable: Bool
    let notificationsAuthorized: Bool

    init(user: Int) {
        self.user = user
        var random = SplitMix64(seed: 0x6C69_6665 &+ UInt64(truncatingIfNeeded: user) &* 0x9E37_79B9)
        declines = random.next() % 10 == 0
        healthDataAvailable = random.next() % 3 != 0
        notificationsAuthorized = random.next() % 4 == 0
        // The steps this user's context shows, in order: a quit or a back happens on one of them.
        var visited = ["welcome", "modules"]
        if healthDataAvailable { visited.append("health-data") }
        if !notificationsAuthorized { visited.append("notifications") }
        visited += ["consent", "account"]
        quitStep = random.next() % 10 < 3 ? visited[Int(random.next() % UInt64(visited.count))] : nil
        backStep = random.next() % 3 == 0 ? visited[2 + Int(random.next() % UInt64(visited.count - 3))] : nil
        var skips: Set<String> = []
        for step in ["health-data", "notifications"] where random.next() % 2 == 0 { skips.insert(step) }
        self.skips = skips
    }

    /// The session's context; it carries the user's number, which is how the test recognises a
    /// declining user's events should any ever reach the collector.
    var context: [String: JSONValue] {
        [
            "healthDataAvailable": .bool(healthDataAvailable),
            "notificationsAuthorized": .bool(notificationsAuthorized),
            "platform": "ios", "installNumber": .number(Double(user)),
        ]
    }

    /// The user's id after the account step.
    var memberID: String { "member-\(user)" }

    /// Milliseconds the user looks at the screen before their `move`th move: 20 to 50.
    func pause(beforeMove move: Int) -> Int {
        var random = SplitMix64(seed: UInt64(truncatingIfNeeded: user) &* 1_000_003 &+ UInt64(truncatingIfNeeded: move))
        return 20 + Int(random.next() % 31)
    }
}

/// SplitMix64 (Steele, Lea and Flood 2014): a small seeded generator, the same on every platform.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
