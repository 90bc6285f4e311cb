import HTTPTypes

/// The client address a proxy in front of the server recorded in a request: trusted only when
/// the server is told every request comes through such a proxy (`--trust-proxy`), since any
/// client can write these headers itself.
package enum ForwardedClient {
    /// The address the nearest proxy appended: the last entry of `X-Forwarded-For` (over all its
    /// fields), else the `for=` of the last element of `Forwarded` (RFC 7239); `nil` when neither
    /// names one. Earlier entries are whatever the client sent and are ignored. Ports and the
    /// brackets of IPv6 are dropped (a new connection must not be a new client).
    package static func address(in fields: HTTPFields) -> String? {
        if let name = HTTPField.Name("X-Forwarded-For") {
            let entries = fields[values: name].joined(separator: ",").split(separator: ",")
            if let last = entries.last.map(trimmed), !last.isEmpty { return normalized(last) }
        }
        if let name = HTTPField.Name("Forwarded"), let last = fields[values: name].last?.split(separator: ",").last {
            for pair in last.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, trimmed(parts[0]).lowercased() == "for" else { continue }
                let value = trimmed(parts[1])
                let unquoted =
                    value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2
                    ? String(value.dropFirst().dropLast()) : value
                return unquoted.isEmpty ? nil : normalized(unquoted)
            }
        }
        return nil
    }

    private static func trimmed(_ text: Substring) -> String {
        String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }

    /// `[v6]:port` → `v6`, `a.b.c.d:port` → `a.b.c.d`; at most 64 characters (a key, not a log).
    private static func normalized(_ address: String) -> String {
        var address = Substring(address)
        if address.hasPrefix("["), let close = address.firstIndex(of: "]") {
            address = address[address.index(after: address.startIndex)..<close]
        } else if address.filter({ $0 == ":" }).count == 1, let colon = address.firstIndex(of: ":") {
            address = address[..<colon]
        }
        return String(address.prefix(64))
    }
}
