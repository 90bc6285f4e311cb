import Foundation

/// How to reach a PostgreSQL server: a libpq connection string (`key=value` pairs or a
/// `postgresql://` URI) plus settings that override it.
///
/// An empty connection string lets libpq read the `PG*` environment variables (`PGHOST`,
/// `PGPORT`, `PGDATABASE`, `PGUSER`, `PGPASSWORD`, ...), exactly as `psql` does.
public struct PostgresConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// The conninfo string or URI, as libpq accepts it.
    public var connectionString: String
    /// libpq keywords that win over the connection string (e.g. `dbname` to reach another database).
    public var overrides: [String: String]

    /// Creates a configuration from a conninfo string or URI.
    public init(_ connectionString: String, overrides: [String: String] = [:]) {
        self.connectionString = connectionString
        self.overrides = overrides
    }

    /// The same server, another database.
    public func database(_ name: String) -> PostgresConfiguration {
        var copy = self
        copy.overrides["dbname"] = name
        return copy
    }

    /// The environment variables that, when set, configure a database without `DATABASE_URL`.
    public static let environmentKeys = [
        "PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE", "PGUSER", "PGPASSWORD", "PGSERVICE",
    ]

    /// The configuration the environment names: `DATABASE_URL` first, else the `PG*` variables;
    /// `nil` when neither is set (callers then use the embedded cluster).
    public static func fromEnvironment(_ environment: [String: String]) -> PostgresConfiguration? {
        if let url = environment["DATABASE_URL"], !url.isEmpty {
            return PostgresConfiguration(url)
        }
        if environmentKeys.contains(where: { !(environment[$0] ?? "").isEmpty }) {
            return PostgresConfiguration("")
        }
        return nil
    }

    /// The connection string and overrides with every password replaced by `***`.
    public var description: String {
        var text = Self.redact(connectionString)
        if text.isEmpty { text = "(PG* environment)" }
        for key in overrides.keys.sorted() {
            let value = key == "password" ? "***" : (overrides[key] ?? "")
            text += " \(key)=\(value)"
        }
        return text
    }

    /// Replaces passwords in a conninfo string or URI by `***`, so it can go into a message.
    public static func redact(_ connectionString: String) -> String {
        let trimmed = connectionString.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("postgresql://") || trimmed.hasPrefix("postgres://") {
            return redactURI(trimmed)
        }
        return redactKeyValue(trimmed)
    }

    private static func redactURI(_ uri: String) -> String {
        var result = uri
        // userinfo: scheme://user:password@host
        if let schemeEnd = result.range(of: "://") {
            let authorityStart = schemeEnd.upperBound
            let authorityEnd =
                result[authorityStart...].firstIndex(where: { $0 == "/" || $0 == "?" }) ?? result.endIndex
            if let at = result[authorityStart..<authorityEnd].lastIndex(of: "@"),
                let colon = result[authorityStart..<at].firstIndex(of: ":")
            {
                result.replaceSubrange(result.index(after: colon)..<at, with: "***")
            }
        }
        // query parameter: ?password=... or &password=...
        if let query = result.firstIndex(of: "?") {
            let head = result[..<query]
            let parameters = result[result.index(after: query)...].split(
                separator: "&", omittingEmptySubsequences: false
            )
            .map { parameter -> String in
                parameter.lowercased().hasPrefix("password=") ? "password=***" : String(parameter)
            }
            result = head + "?" + parameters.joined(separator: "&")
        }
        return result
    }

    private static func redactKeyValue(_ conninfo: String) -> String {
        var output = ""
        var index = conninfo.startIndex
        while index < conninfo.endIndex {
            // Copy whitespace and find the next keyword.
            if conninfo[index].isWhitespace {
                output.append(conninfo[index])
                index = conninfo.index(after: index)
                continue
            }
            let keyEnd = conninfo[index...].firstIndex(where: { $0 == "=" || $0.isWhitespace }) ?? conninfo.endIndex
            let key = conninfo[index..<keyEnd]
            output += key
            index = keyEnd
            // Skip spaces around '='.
            while index < conninfo.endIndex, conninfo[index].isWhitespace {
                output.append(conninfo[index])
                index = conninfo.index(after: index)
            }
            guard index < conninfo.endIndex, conninfo[index] == "=" else { continue }
            output.append("=")
            index = conninfo.index(after: index)
            while index < conninfo.endIndex, conninfo[index].isWhitespace {
                output.append(conninfo[index])
                index = conninfo.index(after: index)
            }
            // Read the value: quoted with backslash escapes, or up to the next space.
            var value = ""
            if index < conninfo.endIndex, conninfo[index] == "'" {
                value.append("'")
                index = conninfo.index(after: index)
                while index < conninfo.endIndex, conninfo[index] != "'" {
                    if conninfo[index] == "\\" {
                        value.append(conninfo[index])
                        index = conninfo.index(after: index)
                        if index == conninfo.endIndex { break }
                    }
                    value.append(conninfo[index])
                    index = conninfo.index(after: index)
                }
                if index < conninfo.endIndex {
                    value.append("'")
                    index = conninfo.index(after: index)
                }
            } else {
                while index < conninfo.endIndex, !conninfo[index].isWhitespace {
                    value.append(conninfo[index])
                    index = conninfo.index(after: index)
                }
            }
            output += key.lowercased() == "password" ? "***" : value
        }
        return output
    }
}
