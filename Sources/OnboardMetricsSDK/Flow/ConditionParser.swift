/// Recursive-descent parser for the condition language (see `Condition`).
///
/// Columns in errors are 1-based and count characters.
struct ConditionParser {
    /// Longest condition text, in characters. Conditions are short; a bound keeps a hostile flow
    /// file from making parsing, evaluating or freeing the expression recurse without end.
    static let maximumLength = 4_096
    /// Deepest nesting of parentheses and `!`.
    static let maximumDepth = 32
    /// Most operands (attributes and literals) in one condition.
    static let maximumOperands = 256

    enum Token: Hashable {
        case identifier(String)
        case string(String)
        case number(Double)
        case bool(Bool)
        case symbol(String)
        case keywordIn
        case end
    }

    private let characters: [Character]
    private var tokens: [(token: Token, column: Int)] = []
    private var position = 0
    private var depth = 0
    private var operands = 0

    init(_ source: String) {
        characters = Array(source)
    }

    mutating func parse() throws(FlowError) -> ConditionExpression {
        guard characters.count <= Self.maximumLength else {
            throw FlowError(
                .conditionTooComplex,
                "the condition is \(characters.count) characters long; at most \(Self.maximumLength) are accepted",
                column: Self.maximumLength + 1)
        }
        tokens = try tokenize()
        let expression = try parseOr()
        guard case .end = current.token else {
            throw error("unexpected \(describe(current.token))", at: current.column)
        }
        return expression
    }

    private var current: (token: Token, column: Int) { tokens[min(position, tokens.count - 1)] }

    private func error(_ message: String, at column: Int) -> FlowError {
        FlowError(.conditionSyntax, message, column: column)
    }

    private func describe(_ token: Token) -> String {
        switch token {
        case .identifier(let name): "identifier '\(name)'"
        case .string(let text): "string \"\(text)\""
        case .number(let number): "number \(number)"
        case .bool(let flag): "'\(flag)'"
        case .symbol(let symbol): "'\(symbol)'"
        case .keywordIn: "'in'"
        case .end: "end of condition"
        }
    }

    private mutating func parseOr() throws(FlowError) -> ConditionExpression {
        var left = try parseAnd()
        while current.token == .symbol("||") {
            position += 1
            left = .or(left, try parseAnd())
        }
        return left
    }

    private mutating func parseAnd() throws(FlowError) -> ConditionExpression {
        var left = try parseUnary()
        while current.token == .symbol("&&") {
            position += 1
            left = .and(left, try parseUnary())
        }
        return left
    }

    private mutating func parseUnary() throws(FlowError) -> ConditionExpression {
        if current.token == .symbol("!") || current.token == .symbol("(") {
            depth += 1
            defer { depth -= 1 }
            guard depth <= Self.maximumDepth else {
                throw FlowError(
                    .conditionTooComplex, "nested more than \(Self.maximumDepth) levels deep", column: current.column)
            }
            return try parseNested()
        }
        return try parseComparison()
    }

    /// `!x` or `(x)`; ``parseUnary()`` counts the depth.
    private mutating func parseNested() throws(FlowError) -> ConditionExpression {
        if current.token == .symbol("!") {
            position += 1
            return .not(try parseUnary())
        }
        if current.token == .symbol("(") {
            let open = current.column
            position += 1
            let inner = try parseOr()
            guard current.token == .symbol(")") else {
                throw error("expected ')' to close '(' at column \(open)", at: current.column)
            }
            position += 1
            return inner
        }
        return try parseComparison()
    }

    private mutating func parseComparison() throws(FlowError) -> ConditionExpression {
        let left = try parseOperand()
        if case .symbol(let symbol) = current.token,
            let comparison = ConditionExpression.Comparison(rawValue: symbol)
        {
            position += 1
            return .compare(left, comparison, try parseOperand())
        }
        if current.token == .keywordIn {
            position += 1
            guard current.token == .symbol("[") else { throw error("expected '[' after 'in'", at: current.column) }
            position += 1
            var values: [JSONValue] = []
            if current.token != .symbol("]") {
                while true {
                    guard case .literal(let value) = try parseOperand(literalOnly: true) else { break }
                    values.append(value)
                    if current.token == .symbol(",") {
                        position += 1
                        continue
                    }
                    break
                }
            }
            guard current.token == .symbol("]") else {
                throw error("expected ',' or ']' in list, found \(describe(current.token))", at: current.column)
            }
            position += 1
            return .member(left, values)
        }
        return .operand(left)
    }

    private mutating func parseOperand(literalOnly: Bool = false) throws(FlowError) -> ConditionExpression.Operand {
        let (token, column) = current
        operands += 1
        guard operands <= Self.maximumOperands else {
            throw FlowError(.conditionTooComplex, "more than \(Self.maximumOperands) operands", column: column)
        }
        switch token {
        case .identifier(let name) where !literalOnly:
            position += 1
            return .attribute(name)
        case .string(let text):
            position += 1
            return .literal(.string(text))
        case .number(let number):
            position += 1
            return .literal(.number(number))
        case .bool(let flag):
            position += 1
            return .literal(.bool(flag))
        default:
            let wanted = literalOnly ? "a literal" : "an identifier or a literal"
            throw error("expected \(wanted), found \(describe(token))", at: column)
        }
    }

    private func tokenize() throws(FlowError) -> [(token: Token, column: Int)] {
        var result: [(token: Token, column: Int)] = []
        var index = 0
        while index < characters.count {
            let character = characters[index]
            let column = index + 1
            if character.isWhitespace {
                index += 1
            } else if character.isLetter || character == "_" {
                var end = index
                while end < characters.count,
                    characters[end].isLetter || characters[end].isNumber || characters[end] == "_"
                        || characters[end] == "."
                {
                    end += 1
                }
                let word = String(characters[index..<end])
                switch word {
                case "true": result.append((.bool(true), column))
                case "false": result.append((.bool(false), column))
                case "in": result.append((.keywordIn, column))
                default: result.append((.identifier(word), column))
                }
                index = end
            } else if character.isNumber
                || (character == "-" && index + 1 < characters.count
                    && characters[index + 1].isNumber)
            {
                var end = index + 1
                while end < characters.count, characters[end].isNumber || characters[end] == "." { end += 1 }
                let text = String(characters[index..<end])
                guard let number = Double(text) else { throw error("malformed number '\(text)'", at: column) }
                result.append((.number(number), column))
                index = end
            } else if character == "\"" || character == "'" {
                var text = ""
                var end = index + 1
                var closed = false
                while end < characters.count {
                    let next = characters[end]
                    if next == "\\", end + 1 < characters.count {
                        text.append(characters[end + 1])
                        end += 2
                    } else if next == character {
                        closed = true
                        end += 1
                        break
                    } else {
                        text.append(next)
                        end += 1
                    }
                }
                guard closed else { throw error("unterminated string", at: column) }
                result.append((.string(text), column))
                index = end
            } else {
                let pair = index + 1 < characters.count ? String(characters[index...index + 1]) : ""
                if ["==", "!=", "<=", ">=", "&&", "||"].contains(pair) {
                    result.append((.symbol(pair), column))
                    index += 2
                } else if "<>!()[],".contains(character) {
                    result.append((.symbol(String(character)), column))
                    index += 1
                } else if character == "=" {
                    throw error("unexpected '=' (use '==' to compare)", at: column)
                } else if character == "&" || character == "|" {
                    throw error("unexpected '\(character)' (use '\(character)\(character)')", at: column)
                } else {
                    throw error("unexpected character '\(character)'", at: column)
                }
            }
        }
        if result.isEmpty { throw error("empty condition", at: 1) }
        result.append((.end, characters.count + 1))
        return result
    }
}
