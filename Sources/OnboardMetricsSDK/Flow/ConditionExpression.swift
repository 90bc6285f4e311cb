/// The syntax tree of a parsed `Condition`.
indirect enum ConditionExpression: Sendable, Hashable {
    /// An identifier or a literal.
    enum Operand: Sendable, Hashable {
        case attribute(String)
        case literal(JSONValue)
    }

    enum Comparison: String, Sendable, Hashable {
        case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    }

    case operand(Operand)
    case not(ConditionExpression)
    case and(ConditionExpression, ConditionExpression)
    case or(ConditionExpression, ConditionExpression)
    case compare(Operand, Comparison, Operand)
    case member(Operand, [JSONValue])
}
