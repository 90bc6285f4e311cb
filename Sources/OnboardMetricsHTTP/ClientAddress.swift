#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a client is counted by, wherever clients are limited (failed sign-ins, connections).
package enum ClientAddress {
    /// The key an address counts under: an IPv4 address itself (also when written as IPv6,
    /// `::ffff:a.b.c.d`), an IPv6 address its /64 network (one host is usually given a whole /64,
    /// and keyed by address it could take 2^64 addresses' allowances), anything else as it is.
    package static func bucket(of client: String) -> String {
        guard client.contains(":") else { return client }
        var address = in6_addr()
        guard inet_pton(AF_INET6, client, &address) == 1 else { return client }
        let bytes = withUnsafeBytes(of: &address) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return bytes[12..<16].map(String.init).joined(separator: ".")
        }
        let groups = stride(from: 0, to: 8, by: 2).map {
            String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16)
        }
        return groups.joined(separator: ":") + "::/64"
    }
}
