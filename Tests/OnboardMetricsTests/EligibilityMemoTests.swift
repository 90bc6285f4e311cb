import OnboardMetricsStatistics
import Testing

@testable import OnboardMetricsAnalysis
@testable import OnboardMetricsSDK

/// The memo of which steps a context puts on the path must answer as the conditions do, for
/// shared contexts, equal contexts with storage of their own, contexts changed after they were
/// remembered, and more contexts than it keeps.
@Suite struct EligibilityMemoTests {
    static let conditions: [Condition?] = [
        nil, "healthDataAvailable", #"platform == "ios" && !notificationsAuthorized"#, nil, "age >= 18",
    ]

    static func direct(_ context: [String: JSONValue]) -> [Bool] {
        conditions.map { $0?.evaluate(context) ?? true }
    }

    static func context(_ number: Int) -> [String: JSONValue] {
        [
            "healthDataAvailable": .bool(number % 2 == 0), "platform": .string(number % 3 == 0 ? "ios" : "android"),
            "notificationsAuthorized": .bool(number % 5 == 0), "age": .number(Double(number % 40)),
        ]
    }

    @Test func answersAsTheConditionsDo() {
        var memo = EligibilityMemo()
        var eligible = Array(repeating: false, count: Self.conditions.count)
        // Twelve contexts shared by many sessions, as a trace decoder hands them out.
        let shared = (0..<12).map(Self.context)
        var random = SplitMix64(seed: 33)
        var checked = 0
        for _ in 0..<2_000 {
            let context: [String: JSONValue]
            switch random.next() % 3 {
            case 0: context = shared[Int(random.next() % 12)]
            // Equal to a shared one, with storage of its own.
            case 1: context = Self.context(Int(random.next() % 12))
            // More distinct contexts than the memo keeps.
            default: context = Self.context(Int(random.next() % 5_000))
            }
            memo.evaluate(Self.conditions, anyCondition: true, on: context, into: &eligible)
            #expect(eligible == Self.direct(context))
            checked += 1
        }
        #expect(checked == 2_000)
    }

    @Test func aContextChangedAfterItWasRememberedIsEvaluatedAgain() {
        var memo = EligibilityMemo()
        var eligible = Array(repeating: false, count: Self.conditions.count)
        var context = Self.context(0)
        memo.evaluate(Self.conditions, anyCondition: true, on: context, into: &eligible)
        #expect(eligible == [true, true, false, true, false])
        context["healthDataAvailable"] = .bool(false)
        context["age"] = .number(30)
        memo.evaluate(Self.conditions, anyCondition: true, on: context, into: &eligible)
        #expect(eligible == [true, false, false, true, true])
        #expect(eligible == Self.direct(context))
    }

    @Test func withoutConditionsEveryStepIsOnThePath() {
        var memo = EligibilityMemo()
        var eligible = [false, false, false]
        memo.evaluate([nil, nil, nil], anyCondition: false, on: [:], into: &eligible)
        #expect(eligible == [true, true, true])
    }
}
