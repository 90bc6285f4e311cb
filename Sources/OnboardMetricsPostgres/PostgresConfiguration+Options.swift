import CPostgres

extension PostgresConfiguration {
    /// The connection options of a URI or conninfo string, as libpq reads them (`host`, `port`,
    /// `dbname`, `user`, `password`, ...): what a foreign server or another client needs.
    /// - Parameter what: what the string is, for the error message ("shard URL").
    /// - Throws: `PostgresError` `.invalidConfiguration` when libpq cannot read the string (its
    ///   password is not repeated in the message).
    package static func options(of connectionString: String, naming what: String = "connection string") throws
        -> [String: String]
    {
        var message: UnsafeMutablePointer<CChar>?
        guard let parsed = PQconninfoParse(connectionString, &message) else {
            let reason = message.map { String(cString: $0) } ?? "unreadable"
            if let message { PQfreemem(message) }
            throw PostgresError(.invalidConfiguration, "cannot read the \(what) \(redact(connectionString)): \(reason)")
        }
        defer { PQconninfoFree(parsed) }
        var options: [String: String] = [:]
        var option = parsed
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { options[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        return options
    }
}
