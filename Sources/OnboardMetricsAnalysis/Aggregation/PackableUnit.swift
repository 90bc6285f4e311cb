/// A unit's merged state that a ``PackedUnitStore`` keeps as bytes until a per-user report
/// counts it. Packing is exact: `unpack` gives back every field as `pack` found it.
protocol PackableUnit: Sendable {
    /// An empty unit of a flow of `stepCount` steps, to unpack into.
    init(stepCount: Int)
    /// The breakdown value, which the store numbers.
    var breakdown: String? { get }
    /// Appends the packed unit to `bytes`; `breakdownNumber` is the store's number for
    /// `breakdown` (read only when that is not `nil`).
    func pack(into bytes: inout [UInt8], breakdownNumber: UInt32)
    /// Reads a unit `pack` wrote into `self`, keeping the storage it can; `breakdown` gives the
    /// string of a breakdown number.
    mutating func unpack(from reader: inout PackedBytes.Reader, breakdown: (UInt32) -> String)
    /// Merges another unit of the same person.
    mutating func merge(_ other: Self)
}
