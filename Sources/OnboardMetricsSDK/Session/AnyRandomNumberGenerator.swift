/// A random number generator of any concrete type, stored in a variable (the session keeps the
/// one it was started with for its event ids).
struct AnyRandomNumberGenerator: RandomNumberGenerator, Sendable {
    var base: any RandomNumberGenerator & Sendable
    /// The base generator's next number.
    mutating func next() -> UInt64 { base.next() }
}
