extension FlowError {
    /// Converts a decoding error into an `.invalidJSON` error with the JSON path of the failure.
    static func from(_ error: DecodingError) -> FlowError {
        if case .dataCorrupted(let context) = error, context.debugDescription.hasPrefix(unknownKeyMarker) {
            return FlowError(.unknownKey, context.debugDescription, path: jsonPath(context.codingPath))
        }
        let (context, what): (DecodingError.Context, String) =
            switch error {
            case .typeMismatch(_, let context): (context, "wrong type")
            case .valueNotFound(_, let context): (context, "missing value")
            case .keyNotFound(let key, let context): (context, "missing key '\(key.stringValue)'")
            case .dataCorrupted(let context): (context, "not valid JSON")
            @unknown default: (DecodingError.Context(codingPath: [], debugDescription: ""), "undecodable")
            }
        var codingPath = context.codingPath
        // A missing key is reported at the key itself, e.g. `$.steps[0].id`.
        if case .keyNotFound(let key, _) = error { codingPath.append(key) }
        return FlowError(.invalidJSON, "\(what): \(context.debugDescription)", path: jsonPath(codingPath))
    }

    /// How ``Decoder/rejectUnknownKeys(_:)`` starts its message.
    static let unknownKeyMarker = "unknown key "

    /// `$.steps[2].id` for a coding path.
    static func jsonPath(_ codingPath: [any CodingKey]) -> String {
        var path = "$"
        for key in codingPath {
            if let index = key.intValue { path += "[\(index)]" } else { path += ".\(key.stringValue)" }
        }
        return path
    }

    /// The error with its path prefixed by the flow it was found in.
    func inFlow(_ flowID: String) -> FlowError {
        var error = self
        error.path = "flow '\(flowID)' \(path ?? "$")"
        return error
    }
}
