/// A ``DiscoveryTrace`` as bytes, for ``PackedUnitStore``: times as varints of their difference
/// from the unit's start (or the time before), names as their UTF-8 bytes (a merge breaks ties by
/// them, so they are kept, not numbered in the order a part met them).
///
/// Why: as a dictionary entry holding two dictionaries of strings a person, `discovery --per
/// user` kept 210 MB for the 765k people of 10M events. Exact: differences wrap, so every value
/// comes back as it was.
///
/// Layout: the start; the flow; the showing count, then per showing its highlight id, time,
/// feature (and, when there is one, when it was named), dismissal time (0, or 1 and the time) and
/// reason; the feature count, then per feature its name and its times, each less the one before;
/// the exposure (0, or 1, its time and variant).
extension DiscoveryTrace: PackableUnit {
    init(stepCount: Int) {
        start = 0
    }

    var breakdown: String? { nil }

    func pack(into bytes: inout [UInt8], breakdownNumber: UInt32) {
        PackedBytes.appendZigZag(start, to: &bytes)
        PackedBytes.appendString(flowID, to: &bytes)
        PackedBytes.appendVarint(UInt64(shown.count), to: &bytes)
        for (id, showing) in shown {
            PackedBytes.appendString(id, to: &bytes)
            PackedBytes.appendZigZag(showing.time &- start, to: &bytes)
            PackedBytes.appendString(showing.feature, to: &bytes)
            if showing.feature != nil { PackedBytes.appendZigZag(showing.featureAt &- showing.time, to: &bytes) }
            if let dismissed = showing.dismissedAt {
                bytes.append(1)
                PackedBytes.appendZigZag(dismissed &- showing.time, to: &bytes)
            } else {
                bytes.append(0)
            }
            PackedBytes.appendString(showing.reason, to: &bytes)
        }
        PackedBytes.appendVarint(UInt64(uses.count), to: &bytes)
        for (feature, times) in uses {
            PackedBytes.appendString(feature, to: &bytes)
            PackedBytes.appendVarint(UInt64(times.count), to: &bytes)
            var previous = start
            for time in times {
                PackedBytes.appendZigZag(time &- previous, to: &bytes)
                previous = time
            }
        }
        if let exposure {
            bytes.append(1)
            PackedBytes.appendZigZag(exposure.time &- start, to: &bytes)
            PackedBytes.appendString(exposure.variant, to: &bytes)
        } else {
            bytes.append(0)
        }
    }

    mutating func unpack(from reader: inout PackedBytes.Reader, breakdown: (UInt32) -> String) {
        start = reader.zigZag()
        flowID = reader.string()
        shown.removeAll(keepingCapacity: true)
        for _ in 0..<Int(reader.varint()) {
            let id = reader.string() ?? ""
            let time = start &+ reader.zigZag()
            let feature = reader.string()
            let featureAt = feature == nil ? 0 : time &+ reader.zigZag()
            let dismissedAt = reader.byte() == 0 ? nil : time &+ reader.zigZag()
            shown[id] = Showing(
                time: time, feature: feature, dismissedAt: dismissedAt, reason: reader.string(), featureAt: featureAt)
        }
        uses.removeAll(keepingCapacity: true)
        for _ in 0..<Int(reader.varint()) {
            let feature = reader.string() ?? ""
            var previous = start
            uses[feature] = (0..<Int(reader.varint())).map { _ in
                previous &+= reader.zigZag()
                return previous
            }
        }
        if reader.byte() == 0 {
            exposure = nil
        } else {
            let time = start &+ reader.zigZag()
            exposure = (time, reader.string() ?? "")
        }
    }
}
