extension Event {
    /// The session context carried by a `session_started` event (`properties.context`), which
    /// replay passes to `FlowNavigator(flow:catalog:context:)`; nil for other events.
    public var sessionContext: [String: JSONValue]? {
        guard kind == .sessionStarted, case .object(let context)? = properties["context"] else { return nil }
        return context
    }
}
