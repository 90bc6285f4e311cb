import Foundation
import OnboardMetricsSDK

extension EventMapping {
    /// Loads a mapping file (`funnel serve --mapping`, `funnel ingest --mapping`): `{"events":
    /// {NAME: RULE}, "screens": {NAME: RULE}}`, a RULE `{"kind", "flow_id"?, "flow_version"?,
    /// "step_id"?, "name"?}`. Unknown keys are refused with their JSON path, as the event reader does.
    /// - Throws: ``EventMappingError``.
    package init(contentsOf path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw EventMappingError(.unreadable, "\(path): cannot read the mapping file")
        }
        // A byte order mark (editors on Windows write one) is not part of the JSON.
        let bytes = Array(data)
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        try self.init(json: bytes.starts(with: bom) ? Array(bytes.dropFirst(3)) : bytes, file: path)
    }

    /// Reads a mapping from JSON text; `file` names it in errors.
    package init(json: [UInt8], file: String) throws {
        func fail(_ path: String, _ reason: String) -> EventMappingError {
            EventMappingError(.invalid, "\(file): \(path.isEmpty ? "" : path + ": ")\(reason)")
        }
        let top: [String: JSONValue]
        do {
            top = try json.withUnsafeBufferPointer { buffer in
                var cursor = JSONCursor(buffer)
                let object = try cursor.object()
                cursor.skipWhitespace()
                guard cursor.atEnd else { throw cursor.error("text after the JSON object") }
                return object
            }
        } catch let error as EventValidationError {
            throw fail("", "not a JSON object: \(error.reason)")
        }
        var mapping = EventMapping()
        for (section, value) in top.sorted(by: { $0.key < $1.key }) {
            guard section == "events" || section == "screens" else {
                throw fail(section, "unknown key (a mapping has \"events\" and \"screens\")")
            }
            guard case .object(let rules) = value else { throw fail(section, "must be an object of rules by name") }
            for (name, ruleValue) in rules.sorted(by: { $0.key < $1.key }) {
                let path = "\(section)[\(JSONEventParser.quoted(name))]"
                guard case .object(let fields) = ruleValue else { throw fail(path, "a rule is a JSON object") }
                var rule = Rule(kind: .custom)
                var sawKind = false
                for (key, field) in fields.sorted(by: { $0.key < $1.key }) {
                    func text() throws -> String {
                        guard case .string(let text) = field, !text.isEmpty else {
                            throw fail("\(path).\(key)", "must be a non-empty string")
                        }
                        return text
                    }
                    switch key {
                    case "kind":
                        let text = try text()
                        guard let kind = EventKind(rawValue: text) else {
                            throw fail(
                                "\(path).kind",
                                "unknown kind \(JSONEventParser.quoted(text)) (one of \(EventKind.allCases.map(\.rawValue).joined(separator: ", ")))"
                            )
                        }
                        rule.kind = kind
                        sawKind = true
                    case "flow_id": rule.flowID = try text()
                    case "step_id": rule.stepID = try text()
                    case "name": rule.name = try text()
                    case "flow_version":
                        guard case .number(let number) = field, number == number.rounded(), number >= 0,
                            number <= Double(Int32.max)
                        else { throw fail("\(path).flow_version", "must be a non-negative integer") }
                        rule.flowVersion = Int(number)
                    default:
                        throw fail(
                            "\(path).\(key)", "unknown key (a rule has kind, flow_id, flow_version, step_id, name)")
                    }
                }
                guard sawKind else { throw fail(path, "kind is missing") }
                if section == "events" { mapping.events[name] = rule } else { mapping.screens[name] = rule }
            }
        }
        self = mapping
    }
}
