import Foundation

extension UUID {
    /// Whether this uuid sorts before `other` in PostgreSQL's order (its bytes, unsigned), which
    /// is also the order of their `uuidString`s (hex digits of the bytes in order, dashes at fixed
    /// places), without making two strings a comparison.
    package func isBefore(_ other: UUID) -> Bool {
        withUnsafeBytes(of: uuid) { left in
            withUnsafeBytes(of: other.uuid) { right in
                for index in 0..<16 where left[index] != right[index] { return left[index] < right[index] }
                return false
            }
        }
    }

    /// Whether a session starting at `start` with this id comes before one starting at
    /// `otherStart` with id `other`: by start, then by id (``isBefore(_:)``). The order of session
    /// lists and of which session names a person.
    package func isBefore(_ other: UUID, start: Int64, otherStart: Int64) -> Bool {
        start != otherStart ? start < otherStart : isBefore(other)
    }
}
