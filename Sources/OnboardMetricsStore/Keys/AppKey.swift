import Crypto
import Foundation

/// An app key of the HTTP collector, as stored: never the key itself, only its SHA-256 and the
/// first characters, so people can tell keys apart.
public struct AppKey: Sendable, Hashable, Codable {
    /// The key's number, for `funnel keys revoke`.
    public var id: Int64
    /// What the key is for (an app, a platform, an environment).
    public var name: String
    /// The key's first characters, e.g. `om_3fA9x`.
    public var prefix: String
    /// When it was created.
    public var createdAt: Date
    /// When it was revoked; `nil` while it is valid.
    public var revokedAt: Date?

    /// Creates a key record.
    public init(id: Int64, name: String, prefix: String, createdAt: Date, revokedAt: Date? = nil) {
        self.id = id
        self.name = name
        self.prefix = prefix
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, name, prefix
        case createdAt = "created_at"
        case revokedAt = "revoked_at"
    }

    /// The digest stored for a key and compared on every request: SHA-256 (swift-crypto) of its
    /// UTF-8 bytes, the same as PostgreSQL's `sha256(convert_to(key, 'UTF8'))`.
    package static func digest(of secret: String) -> [UInt8] { Array(SHA256.hash(data: Data(secret.utf8))) }

    /// ``digest(of:)`` in lowercase hex.
    package static func hexDigest(of secret: String) -> String {
        digest(of: secret).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// A new random key: `om_` and 43 characters of base64url over 32 bytes from the system's
    /// cryptographic random source.
    package static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let text = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return keyPrefix + text
    }

    /// What every app key starts with (``newSecret()``).
    package static let keyPrefix = "om_"

    /// How many characters of a key are kept as its prefix: enough to tell keys apart, far too
    /// few to guess the rest.
    package static let prefixLength = 10
}
