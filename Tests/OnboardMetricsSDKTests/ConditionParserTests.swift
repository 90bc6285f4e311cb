import Testing

@testable import OnboardMetricsSDK

@Suite struct ConditionParserTests {
    static let context: [String: JSONValue] = [
        "platform": "ios", "appVersion": "2.10.1", "healthDataAvailable": true, "notificationsAuthorized": false,
        "age": 34, "country": "CH", "build": "2.9",
    ]

    @Test(arguments: [
        ("healthDataAvailable", true),
        ("!notificationsAuthorized", true),
        ("notificationsAuthorized", false),
        ("platform == \"ios\"", true),
        ("platform != 'ios'", false),
        ("platform == \"ios\" && appVersion >= \"2.3\"", true),
        ("appVersion >= \"2.10\"", true),
        ("appVersion > \"2.10\"", true),
        ("appVersion == \"2.10.1\"", true),
        ("appVersion < \"2.9\"", false),
        ("build >= \"2.10\"", false),
        ("build < \"2.10\"", true),
        ("\"2.10\" == \"2.10.0\"", true),
        ("age >= 18 && age < 65", true),
        ("age > 34.5", false),
        ("age == 34", true),
        ("country in [\"CH\", \"DE\"]", true),
        ("country in ['FR']", false),
        ("age in [33, 34]", true),
        ("country in []", false),
        ("!(platform == \"android\" || age < 18)", true),
        ("platform == \"android\" || age < 18 && country == \"CH\"", false),
        ("true", true),
        ("false || true", true),
        ("!!healthDataAvailable", true),
        // A missing attribute makes every comparison false, and a bare missing attribute false.
        ("missing == \"x\"", false),
        ("missing != \"x\"", false),
        ("missing < 3", false),
        ("missing in [\"x\"]", false),
        ("missing", false),
        ("!missing", true),
        ("!(missing == 1)", true),
        // Different types: only != holds.
        ("platform == 3", false),
        ("platform != 3", true),
        ("age < \"40\"", false),
        ("healthDataAvailable == true", true),
        ("healthDataAvailable > false", false),
    ])
    func evaluates(source: String, expected: Bool) throws {
        let condition = try Condition.parse(source)
        #expect(condition.evaluate(Self.context) == expected, "\(source)")
    }

    @Test(arguments: [
        ("", 1), ("platform ==", 12), ("platform = \"ios\"", 10), ("a && (b || c", 13), ("a & b", 3),
        ("country in \"CH\"", 12), ("country in [\"CH\" \"DE\"]", 18), ("x == \"open", 6), ("a b", 3),
        ("(a))", 4), ("a == #", 6), ("x in [y]", 7), ("&& a", 1),
    ])
    func reportsColumn(source: String, column: Int) {
        #expect(throws: FlowError.self) { try Condition.parse(source) }
        let error = Condition(source).syntaxError
        #expect(error?.code == .conditionSyntax)
        #expect(error?.column == column, "\(source): \(error?.description ?? "no error")")
    }

    @Test func unparsableConditionIsFalse() {
        #expect(Condition("platform ==").evaluate(Self.context) == false)
    }

    @Test(arguments: [
        ("2.10.1", "2.10", 1), ("2.9", "2.10", -1), ("2.10", "2.10.0", 0), ("10", "9", 1), ("1.0.0", "1", 0),
    ])
    func versionOrder(left: String, right: String, order: Int) throws {
        let a = try #require(VersionNumber(left))
        let b = try #require(VersionNumber(right))
        #expect(a.compare(b) == order)
    }

    @Test(arguments: ["", "2.", ".1", "2..1", "v2", "2.x", "1.2-beta"])
    func notAVersion(text: String) {
        #expect(VersionNumber(text) == nil)
    }

    @Test func conditionsEqualByText() {
        #expect(Condition("a && b") == "a && b")
        #expect(Condition("a && b") != Condition("a&&b"))
    }
}
