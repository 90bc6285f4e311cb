import Foundation
import OnboardMetricsRendering

extension DashboardPage {
    /// One field of a report page's filter form: a text input, or a choice whose first value is
    /// the command's default.
    struct Field: Sendable {
        var name: String
        var label: String
        var placeholder = ""
        var choices: [String]? = nil
        /// The text input's width, in characters.
        var size = 12

        /// The range every report page filters by.
        static let since = Field(name: "since", label: "Since", placeholder: "2026-01-01")
        static let until = Field(name: "until", label: "Until", placeholder: "2026-02-01")
    }

    /// The filter form of each report page, its fields named as the query parameters.
    static let reportFields: [String: [Field]] = [
        "trends": [
            Field(name: "interval", label: "Interval", choices: ["week", "day", "month"]),
            .since, .until,
            Field(name: "by", label: "Breakdown", placeholder: "platform"),
            Field(name: "window", label: "Window", placeholder: "7d"),
        ],
        "compare": [
            Field(name: "a_since", label: "A since", placeholder: "2026-01-01"),
            Field(name: "a_until", label: "A until", placeholder: "2026-01-15"),
            Field(name: "b_since", label: "B since", placeholder: "2026-01-15"),
            Field(name: "b_until", label: "B until", placeholder: "2026-02-01"),
            Field(name: "property", label: "or property", placeholder: "appVersion"),
            Field(name: "a", label: "A", placeholder: "1.0"),
            Field(name: "b", label: "B", placeholder: "1.1"),
        ],
        "users": [
            Field(name: "step", label: "Step", placeholder: "consent"),
            Field(
                name: "status", label: "Status", choices: ["dropped", "viewed", "completed", "skipped", "in_progress"]),
            Field(name: "per", label: "Per", choices: ["session", "user"]),
            .since, .until,
        ],
        "retention": [
            Field(name: "by", label: "Groups", placeholder: "outcome"),
            Field(name: "days", label: "Days", placeholder: "1,7,30"),
            Field(name: "per", label: "Per", choices: ["user", "session"]),
            .since, .until,
        ],
        "correlation": [
            Field(name: "step", label: "Step", placeholder: "most dropped"),
            Field(name: "per", label: "Per", choices: ["session", "user"]),
            .since, .until,
            Field(name: "top", label: "Top", placeholder: "10"),
        ],
        "paths": [
            Field(name: "step", label: "After a drop at", placeholder: "most dropped"),
            Field(name: "between", label: "or between", placeholder: "welcome,consent"),
            Field(name: "depth", label: "Depth", placeholder: "3"),
            Field(name: "per", label: "Per", choices: ["session", "user"]),
            .since, .until,
        ],
        "funnel": [
            Field(name: "steps", label: "Steps", placeholder: "welcome,modules,consent,account", size: 40),
            Field(name: "order", label: "Order", choices: ["ordered", "strict", "any"]),
            Field(name: "per", label: "Per", choices: ["session", "user"]),
            Field(name: "window", label: "Window", placeholder: "7d"),
            .since, .until,
        ],
        "discovery": [
            Field(name: "highlight", label: "Highlight", placeholder: "all"),
            Field(name: "per", label: "Per", choices: ["session", "user"]),
            Field(name: "window", label: "Window", placeholder: "7d"),
            .since, .until,
        ],
    ]

    /// A GET form to `path` whose fields hold `query`'s values, so submitting it makes the link of
    /// the view; parameters the form has no field for ride along hidden.
    static func form(_ fields: [Field], query: DashboardQuery, path: String) -> String {
        var html = "<form method=\"get\" action=\"\(HTML.escape(path))\">\n"
        let named = Set(fields.map(\.name))
        for item in query.items where !named.contains(item.name) && item.name != "format" && !item.value.isEmpty {
            html += "<input type=\"hidden\" name=\"\(HTML.escape(item.name))\" value=\"\(HTML.escape(item.value))\">\n"
        }
        for field in fields {
            let value = query.value(field.name) ?? ""
            html += "<label>\(HTML.escape(field.label)) "
            if let choices = field.choices {
                html += "<select name=\"\(HTML.escape(field.name))\">"
                for choice in choices {
                    html += "<option\(choice == value ? " selected" : "")>\(HTML.escape(choice))</option>"
                }
                html += "</select>"
            } else {
                html +=
                    "<input name=\"\(HTML.escape(field.name))\" value=\"\(HTML.escape(value))\" "
                    + "placeholder=\"\(HTML.escape(field.placeholder))\" size=\"\(field.size)\">"
            }
            html += "</label>\n"
        }
        return html + "<button type=\"submit\">Show</button></form>\n"
    }
}
