extension PostgresConnection {
    /// `name` as a quoted SQL identifier (`"a""b"` for `a"b`), for the places where an
    /// identifier cannot be a parameter (DDL, `CLUSTER`, server options).
    package static func quotedIdentifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
