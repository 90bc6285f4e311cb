/// A ``FunnelOutcome`` as bytes, for packed funnel states and the people of paths and retention:
/// a header byte (the status in the low two bits, bit 2 when there is a last step, bits 3 to 7
/// the caller's own), then the start less the previous outcome's and the last step when present,
/// as varints.
extension FunnelOutcome {
    /// The header's bit saying a last step follows.
    private static let hasLastStep: UInt8 = 1 << 2

    /// Appends the header, with the caller's `flags` (bits 3 to 7), and the fields.
    func pack(into bytes: inout [UInt8], previousStart: Int64, flags: UInt8 = 0) {
        var header = status.packed
        if lastStep != nil { header |= Self.hasLastStep }
        bytes.append(header | flags)
        PackedBytes.appendZigZag(start &- previousStart, to: &bytes)
        if let lastStep { PackedBytes.appendZigZag(Int64(lastStep), to: &bytes) }
    }

    /// Reads what `pack` wrote; returns the outcome and the header (for the caller's flags).
    static func unpack(from reader: inout PackedBytes.Reader, previousStart: Int64) -> (Self, header: UInt8) {
        let header = reader.byte()
        let status = FunnelUnitState.Status(packed: header)
        let start = previousStart &+ reader.zigZag()
        let lastStep = header & hasLastStep != 0 ? Int(truncatingIfNeeded: reader.zigZag()) : nil
        return (FunnelOutcome(status: status, start: start, lastStep: lastStep), header)
    }
}
