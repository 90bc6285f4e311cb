import Foundation

extension UUID {
    /// Whether this uuid sorts before `other` in PostgreSQL's order (its bytes, unsigned).
    func isBefore(_ other: UUID) -> Bool {
        withUnsafeBytes(of: uuid) { left in
            withUnsafeBytes(of: other.uuid) { right in
                for index in 0..<16 where left[index] != right[index] { return left[index] < right[index] }
                return false
            }
        }
    }
}
