import Foundation

/// A viewer of the read-only dashboard (`funnel dashboard`), as stored: its name and dates, never
/// its secret (only a bcrypt hash of it is kept, and that hash is not part of this record).
public struct Viewer: Sendable, Hashable, Codable {
    /// The viewer's number.
    public var id: Int64
    /// The name the viewer signs in with (the HTTP Basic user).
    public var name: String
    /// When it was created.
    public var createdAt: Date
    /// When it was revoked; `nil` while it may sign in.
    public var revokedAt: Date?

    /// Creates a viewer record.
    public init(id: Int64, name: String, createdAt: Date, revokedAt: Date? = nil) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, name
        case createdAt = "created_at"
        case revokedAt = "revoked_at"
    }
}
