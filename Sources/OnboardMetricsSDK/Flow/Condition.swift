/// A condition over the session context, e.g. `platform == "ios" && appVersion >= "2.3"`.
///
/// Grammar (precedence from low to high): `||`, `&&`, `!`, comparison
/// (`== != < <= > >=`, `in [literal, ...]`), parentheses. Operands are identifiers (letters,
/// digits, `_`, `.`) naming context attributes, or literals: strings in double or single quotes,
/// numbers, `true`, `false`. A bare identifier is true when the attribute is `true` (or a non-zero
/// number / non-empty string).
///
/// Semantics:
/// - A missing attribute makes any comparison that uses it false (and a bare identifier false).
/// - Two strings that both look like versions (digits separated by dots: `"2"`, `"2.10"`,
///   `"2.10.1"`) compare as versions, component by component, missing components being 0:
///   `"2.10.1" >= "2.10"` and `"2.10" == "2.10.0"` are true, `"2.9" >= "2.10"` is false.
///   Other strings compare by Unicode scalars; numbers numerically.
/// - Comparing values of different types is false for `==`, `<`, ... and true for `!=`.
///
/// Created from text without throwing so it can be a string literal in the DSL; an unparsable
/// condition evaluates to false and is reported by `FlowDefinition.validate()` with its JSON path.
/// Two conditions are equal when their texts are equal.
public struct Condition: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The condition's text, as written.
    public let source: String
    let parsed: Result<ConditionExpression, FlowError>

    /// Creates a condition from its text; check `syntaxError` (or validate the flow) for problems.
    public init(_ source: String) {
        self.source = source
        var parser = ConditionParser(source)
        do throws(FlowError) {
            parsed = .success(try parser.parse())
        } catch {
            parsed = .failure(error)
        }
    }

    public init(stringLiteral value: String) { self.init(value) }

    /// Parses a condition, throwing a `.conditionSyntax` error with the column when it does not parse.
    public static func parse(_ source: String) throws(FlowError) -> Condition {
        let condition = Condition(source)
        if let error = condition.syntaxError { throw error }
        return condition
    }

    /// The parse error, if the text does not parse.
    public var syntaxError: FlowError? {
        if case .failure(let error) = parsed { return error }
        return nil
    }

    /// Whether the condition holds for `context`; false when it does not parse.
    public func evaluate(_ context: [String: JSONValue]) -> Bool {
        guard case .success(let expression) = parsed else { return false }
        return expression.evaluate(context)
    }

    public var description: String { source }

    public static func == (lhs: Condition, rhs: Condition) -> Bool { lhs.source == rhs.source }
    public func hash(into hasher: inout Hasher) { hasher.combine(source) }
}

extension Condition: Codable {
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(source)
    }
}
