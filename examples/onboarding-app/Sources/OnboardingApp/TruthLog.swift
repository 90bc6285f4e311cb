import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The truth file of `OnboardingApp life`: one JSON line per move the user began and one more
/// once the SDK made it durable, each written and fsynced before the program goes on — so after a
/// kill the file says which moves certainly happened (`done`) and which may or may not have
/// (`begun` alone).
///
///     {"anon":"anon-…","launch":2,"move":"skip","state":"begun","step":"health-data","user":7}
struct TruthLog {
    let path: String
    let user: Int
    let launch: Int
    /// The SDK's anonymous id of the install, on every line: how the test finds a declining
    /// user's events should any reach the collector.
    let anonymousID: String
    /// The lines of earlier launches and this one, decoded.
    private(set) var lines: [[String: Any]]

    init(path: String, user: Int, launch: Int, anonymousID: String) throws {
        self.path = path
        self.user = user
        self.launch = launch
        self.anonymousID = anonymousID
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        // A line torn by a kill (written but not whole) is skipped: it was never fsynced as done.
        lines = text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// Moves begun so far, in all launches.
    var begunMoves: Int { lines.filter { $0["state"] as? String == "begun" }.count }

    /// Whether a move of that name was begun in any launch.
    func hasBegun(_ move: String) -> Bool {
        lines.contains { $0["move"] as? String == move && $0["state"] as? String == "begun" }
    }

    /// Appends one line and waits for the disk.
    mutating func append(move: String, step: String?, state: String, granted: Bool? = nil) throws {
        var object: [String: Any] = [
            "user": user, "launch": launch, "move": move, "step": step ?? NSNull(), "state": state,
            "anon": anonymousID,
        ]
        if let granted { object["granted"] = granted }
        var data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        data.append(10)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        guard descriptor >= 0 else { throw Failure("cannot open the truth file \(path)") }
        defer { close(descriptor) }
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == data.count, fsync(descriptor) == 0 else {
            throw Failure("cannot write the truth file \(path)")
        }
        lines.append(object)
    }
}
