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
    ///
    /// Lenient on purpose: it must hold for any string a user typed, including ones libpq itself
    /// refuses (an upper-case scheme, a `/` or `@` in the password, a broken `%` escape, an
    /// unclosed `[`, an unquoted password with a space in it).
    public static func redact(_ connectionString: String) -> String {
        let trimmed = connectionString.trimmingCharacters(in: .whitespaces)
        if isURI(trimmed) { return redactURI(trimmed) }
        return redactKeyValue(trimmed)
    }

    /// Every password the settings hold, as written and percent-decoded, for scrubbing messages.
    var secrets: [String] {
        let trimmed = connectionString.trimmingCharacters(in: .whitespaces)
        var found = Self.isURI(trimmed) ? Self.uriPasswords(trimmed) : Self.keyValuePasswords(trimmed)
        if let password = overrides["password"] { found.append(password) }
        found += found.compactMap { $0.removingPercentEncoding }
        return found.filter { !$0.isEmpty }
    }

    /// `text` with every password of these settings, and every piece of one that libpq may quote
    /// on its own (split at URI delimiters), replaced by `***`.
    public func scrub(_ text: String) -> String {
        var pieces = Set<String>()
        for secret in secrets {
            pieces.insert(secret)
            for piece in secret.split(whereSeparator: { "/?@:&=[]%# \t\\'\"".contains($0) }) where piece.count >= 2 {
                pieces.insert(String(piece))
            }
        }
        var result = text
        // Longest first, so a piece inside a longer secret does not leave the rest of it behind.
        for piece in pieces.sorted(by: { $0.count > $1.count }) {
            result = result.replacingOccurrences(of: piece, with: "***")
        }
        return result
    }

    private static func isURI(_ text: String) -> Bool {
        let lower = text.prefix(13).lowercased()
        return lower.hasPrefix("postgresql://") || lower.hasPrefix("postgres://")
    }

    /// The userinfo of a URI: from after `://` to the last `@` (before the query if there is one
    /// there; a password may hold `/`, `?` or `@`).
    private static func userinfo(_ uri: String) -> Range<String.Index>? {
        guard let schemeEnd = uri.range(of: "://") else { return nil }
        let start = schemeEnd.upperBound
        let queryStart = uri[start...].firstIndex(of: "?") ?? uri.endIndex
        guard let at = uri[start..<queryStart].lastIndex(of: "@") ?? uri[start...].lastIndex(of: "@") else {
            return nil
        }
        return start..<at
    }

    private static func uriPasswords(_ uri: String) -> [String] {
        var found: [String] = []
        if let info = userinfo(uri), let colon = uri[info].firstIndex(of: ":") {
            found.append(String(uri[uri.index(after: colon)..<info.upperBound]))
        }
        let queryStart = userinfo(uri).map { uri[$0.upperBound...].firstIndex(of: "?") } ?? uri.firstIndex(of: "?")
        if let query = queryStart {
            for parameter in uri[uri.index(after: query)...].split(separator: "&")
            where parameter.lowercased().hasPrefix("password=") {
                found.append(String(parameter.dropFirst(9)))
            }
        }
        return found
    }

    private static func redactURI(_ uri: String) -> String {
        var result = uri
        if let info = userinfo(result), let colon = result[info].firstIndex(of: ":") {
            result.replaceSubrange(result.index(after: colon)..<info.upperBound, with: "***")
        }
        // query parameter: ?password=... or &password=...
        let queryStart =
            userinfo(result).map { result[$0.upperBound...].firstIndex(of: "?") } ?? result.firstIndex(of: "?")
        if let query = queryStart {
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

    /// One `key=value` (or a bare word without `=`) of a conninfo string.
    private struct KeyValueToken {
        var key: Substring
        /// The value as written (quotes included), nil for a bare word.
        var value: Substring?
        /// The value without quotes and escapes.
        var text: String?
        var range: Range<String.Index>
        var valueRange: Range<String.Index>?
    }

    private static func keyValueTokens(_ conninfo: String) -> [KeyValueToken] {
        var tokens: [KeyValueToken] = []
        var index = conninfo.startIndex
        func skipSpaces() {
            while index < conninfo.endIndex, conninfo[index].isWhitespace { index = conninfo.index(after: index) }
        }
        while true {
            skipSpaces()
            guard index < conninfo.endIndex else { break }
            let start = index
            let keyEnd = conninfo[index...].firstIndex(where: { $0 == "=" || $0.isWhitespace }) ?? conninfo.endIndex
            let key = conninfo[index..<keyEnd]
            index = keyEnd
            skipSpaces()
            guard index < conninfo.endIndex, conninfo[index] == "=" else {
                tokens.append(KeyValueToken(key: key, range: start..<keyEnd))
                continue
            }
            index = conninfo.index(after: index)
            skipSpaces()
            let valueStart = index
            var text = ""
            if index < conninfo.endIndex, conninfo[index] == "'" {
                index = conninfo.index(after: index)
                while index < conninfo.endIndex, conninfo[index] != "'" {
                    if conninfo[index] == "\\" {
                        index = conninfo.index(after: index)
                        if index == conninfo.endIndex { break }
                    }
                    text.append(conninfo[index])
                    index = conninfo.index(after: index)
                }
                if index < conninfo.endIndex { index = conninfo.index(after: index) }
            } else {
                while index < conninfo.endIndex, !conninfo[index].isWhitespace {
                    if conninfo[index] == "\\" {
                        index = conninfo.index(after: index)
                        if index == conninfo.endIndex { break }
                    }
                    text.append(conninfo[index])
                    index = conninfo.index(after: index)
                }
            }
            tokens.append(
                KeyValueToken(
                    key: key, value: conninfo[valueStart..<index], text: text, range: start..<index,
                    valueRange: valueStart..<index))
        }
        return tokens
    }

    /// The password's value and any bare words after it (`password=SECRET PW` without quotes:
    /// libpq reads `PW` as a keyword and quotes it in its error).
    private static func keyValuePasswords(_ conninfo: String) -> [String] {
        var found: [String] = []
        var afterPassword = false
        for token in keyValueTokens(conninfo) {
            if token.value == nil {
                if afterPassword { found.append(String(token.key)) }
                continue
            }
            afterPassword = token.key.lowercased() == "password"
            if afterPassword, let value = token.value, let text = token.text {
                found += [String(value), text]
            }
        }
        return found
    }

    private static func redactKeyValue(_ conninfo: String) -> String {
        var output = ""
        var last = conninfo.startIndex
        var afterPassword = false
        for token in keyValueTokens(conninfo) {
            output += conninfo[last..<token.range.lowerBound]
            last = token.range.upperBound
            guard let valueRange = token.valueRange else {
                output += afterPassword ? "***" : String(token.key)
                continue
            }
            afterPassword = token.key.lowercased() == "password"
            output += conninfo[token.range.lowerBound..<valueRange.lowerBound]
            output += afterPassword ? "***" : String(conninfo[valueRange])
        }
        output += conninfo[last...]
        return output
    }
}
