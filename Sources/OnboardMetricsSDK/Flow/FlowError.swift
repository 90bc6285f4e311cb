/// An error about a flow: a bad definition, a condition that does not parse, or an illegal move
/// asked of a `FlowNavigator`.
///
/// Definition errors carry the JSON path of the offending value (e.g. `$.steps[2].id`); condition
/// syntax errors carry the 1-based column in the condition text.
public struct FlowError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is. Compare with the static members, e.g. `error.code == .duplicateStepID`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The file is not valid JSON or a value has the wrong type.
        public static let invalidJSON = Code("invalidJSON")
        /// An object has a key the flow format does not know (a typo such as `skipable`).
        public static let unknownKey = Code("unknownKey")
        /// A condition is longer or nested deeper than the parser accepts.
        public static let conditionTooComplex = Code("conditionTooComplex")
        /// The flow has no steps.
        public static let emptyFlow = Code("emptyFlow")
        /// A flow id or step id is empty.
        public static let emptyID = Code("emptyID")
        /// Two steps share an id.
        public static let duplicateStepID = Code("duplicateStepID")
        /// Two highlights of a flow share an id.
        public static let duplicateHighlightID = Code("duplicateHighlightID")
        /// A declared jump names a step the flow does not have.
        public static let unknownJumpTarget = Code("unknownJumpTarget")
        /// A hand-off names a flow the catalog does not have.
        public static let unknownHandOffTarget = Code("unknownHandOffTarget")
        /// Hand-offs form a cycle (a flow hands off, directly or not, to itself).
        public static let handOffCycle = Code("handOffCycle")
        /// A condition does not parse; `column` says where.
        public static let conditionSyntax = Code("conditionSyntax")
        /// Two flows in a catalog share an id and version.
        public static let duplicateFlowID = Code("duplicateFlowID")
        /// A navigator was asked to move before `start()` or after the flow finished.
        public static let notRunning = Code("notRunning")
        /// `start()` was called twice.
        public static let alreadyStarted = Code("alreadyStarted")
        /// `skip()` on a step that is not skippable.
        public static let notSkippable = Code("notSkippable")
        /// `goTo` to a step the current flow does not declare.
        public static let unknownStep = Code("unknownStep")
        /// `back()` with nothing to go back to.
        public static let noHistory = Code("noHistory")
        /// A highlight id the flow does not declare.
        public static let unknownHighlight = Code("unknownHighlight")
        /// `complete()` was asked on a step that is not the last one that applies.
        public static let notLastStep = Code("notLastStep")
    }

    /// What kind of failure this is.
    public var code: Code
    /// A sentence for people, saying what is wrong.
    public var message: String
    /// The JSON path of the offending value, e.g. `$.steps[2].when`, for definition errors.
    public var path: String?
    /// The 1-based column in the condition text, for condition syntax errors.
    public var column: Int?
    /// The flow a catalog error is about (to name its file).
    package var flowID: String?

    /// Creates an error.
    public init(_ code: Code, _ message: String, path: String? = nil, column: Int? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.column = column
    }

    public var description: String {
        var text = ""
        if let path { text += "\(path): " }
        text += message
        if let column { text += " (column \(column))" }
        return text
    }
}
