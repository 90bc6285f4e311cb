import Foundation

/// A person's ``UnitListAggregator/Unit`` as bytes, for ``PackedUnitStore``: the funnel state
/// packed, then the first session's id, the start, the last event and the sessions counted. The
/// user id is the store's key, so it is not packed: a unit read back has an empty one.
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
        PackedBytes.append(start, to: &bytes)
        PackedBytes.append(lastEvent, to: &bytes)
        PackedBytes.append(Int64(sessions), to: &bytes)
    }

    mutating func unpack(from reader: inout PackedBytes.Reader, breakdown: (UInt32) -> String) {
        state.unpack(from: &reader, breakdown: breakdown)
        var uuid = sessionID.uuid
        withUnsafeMutableBytes(of: &uuid) { target in
            for index in 0..<16 { target[index] = reader.byte() }
        }
        sessionID = UUID(uuid: uuid)
        start = reader.load(Int64.self)
        lastEvent = reader.load(Int64.self)
        sessions = Int(reader.load(Int64.self))
    }
}
