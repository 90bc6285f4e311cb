/// A dotted version such as `2.10.1`, compared component by component.
struct VersionNumber: Sendable, Hashable {
    let components: [Int]

    /// Nil unless `text` is digits separated by single dots (`"2"`, `"2.10"`, `"2.10.1"`).
    init?(_ text: String) {
        var components: [Int] = []
        for part in text.split(separator: ".", omittingEmptySubsequences: false) {
            guard !part.isEmpty, part.count <= 9, part.allSatisfy({ $0.isASCII && $0.isNumber }),
                let value = Int(part)
            else { return nil }
            components.append(value)
        }
        guard !components.isEmpty else { return nil }
        self.components = components
    }

    /// -1, 0 or 1; missing trailing components count as 0, so `2.10 == 2.10.0`.
    func compare(_ other: VersionNumber) -> Int {
        for index in 0..<max(components.count, other.components.count) {
            let a = index < components.count ? components[index] : 0
            let b = index < other.components.count ? other.components[index] : 0
            if a != b { return a < b ? -1 : 1 }
        }
        return 0
    }
}
