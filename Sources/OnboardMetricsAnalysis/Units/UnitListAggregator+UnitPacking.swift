import Foundation

/// A person's ``UnitListAggregator/Unit`` as bytes, for ``PackedUnitStore``: the funnel state
/// packed, then the first session's id, the start and the last event (zigzag varints of their
/// differences from the state's start, wrapping, so every `Int64` comes back) and the sessions
/// counted (a zigzag varint too). The user id is the store's key, so it is not packed: a unit read back has
/// an empty one.
extension UnitListAggregator.Unit: PackableUnit {
    init(stepCount: Int) {
        self.init(
            state: FunnelUnitState(stepCount: stepCount), userID: "",
            sessionID: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), start: 0, lastEvent: 0,
            sessions: 0)
    }

    var breakdown: String? { state.breakdown }

    func pack(into bytes: inout [UInt8], breakdownNumber: UInt32) {
        state.pack(into: &bytes, breakdownNumber: breakdownNumber)
        withUnsafeBytes(of: sessionID.uuid) { bytes.append(contentsOf: $0) }
        PackedBytes.appendZigZag(start &- state.start, to: &bytes)
        PackedBytes.appendZigZag(lastEvent &- state.start, to: &bytes)
        PackedBytes.appendZigZag(Int64(sessions), to: &bytes)
    }

    mutating func unpack(from reader: inout PackedBytes.Reader, breakdown: (UInt32) -> String) {
        state.unpack(from: &reader, breakdown: breakdown)
        var uuid = sessionID.uuid
        withUnsafeMutableBytes(of: &uuid) { target in
            for index in 0..<16 { target[index] = reader.byte() }
        }
        sessionID = UUID(uuid: uuid)
        start = state.start &+ reader.zigZag()
        lastEvent = state.start &+ reader.zigZag()
        sessions = Int(reader.zigZag())
    }
}
