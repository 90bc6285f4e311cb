/// The result builder behind `FlowDefinition(id:version:steps:)`: a list of `Step`s, with `if`,
/// `if/else` and `for` allowed.
@resultBuilder
public enum StepBuilder {
    public static func buildExpression(_ step: Step) -> [Step] { [step] }
    public static func buildExpression(_ steps: [Step]) -> [Step] { steps }
    public static func buildBlock(_ parts: [Step]...) -> [Step] { parts.flatMap { $0 } }
    public static func buildOptional(_ part: [Step]?) -> [Step] { part ?? [] }
    public static func buildEither(first part: [Step]) -> [Step] { part }
    public static func buildEither(second part: [Step]) -> [Step] { part }
    public static func buildArray(_ parts: [[Step]]) -> [Step] { parts.flatMap { $0 } }
}
