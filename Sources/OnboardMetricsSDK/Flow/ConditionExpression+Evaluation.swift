extension ConditionExpression {
    func evaluate(_ context: [String: JSONValue]) -> Bool {
        switch self {
        case .operand(let operand):
            switch resolve(operand, context) {
            case .bool(let flag)?: return flag
            case .number(let number)?: return number != 0
            case .string(let string)?: return !string.isEmpty
            default: return false
            }
        case .not(let inner): return !inner.evaluate(context)
        case .and(let left, let right): return left.evaluate(context) && right.evaluate(context)
        case .or(let left, let right): return left.evaluate(context) || right.evaluate(context)
        case .compare(let left, let comparison, let right):
            // A missing attribute makes the comparison false, whatever the operator.
            guard let lhs = resolve(left, context), let rhs = resolve(right, context) else { return false }
            return Self.compare(lhs, comparison, rhs)
        case .member(let operand, let list):
            guard let value = resolve(operand, context) else { return false }
            return list.contains { Self.compare(value, .equal, $0) }
        }
    }

    private func resolve(_ operand: Operand, _ context: [String: JSONValue]) -> JSONValue? {
        switch operand {
        case .literal(let value): return value
        case .attribute(let name):
            guard let value = context[name], value != .null else { return nil }
            return value
        }
    }

    static func compare(_ lhs: JSONValue, _ comparison: Comparison, _ rhs: JSONValue) -> Bool {
        let order: Int
        switch (lhs, rhs) {
        case (.number(let a), .number(let b)): order = a < b ? -1 : (a > b ? 1 : 0)
        case (.string(let a), .string(let b)):
            if let va = VersionNumber(a), let vb = VersionNumber(b) {
                order = va.compare(vb)
            } else {
                order = a < b ? -1 : (a > b ? 1 : 0)
            }
        case (.bool(let a), .bool(let b)):
            guard comparison == .equal || comparison == .notEqual else { return false }
            order = a == b ? 0 : 1
        default:
            return comparison == .notEqual
        }
        switch comparison {
        case .equal: return order == 0
        case .notEqual: return order != 0
        case .less: return order < 0
        case .lessOrEqual: return order <= 0
        case .greater: return order > 0
        case .greaterOrEqual: return order >= 0
        }
    }
}
