import Foundation

/// What the truth files of `OnboardingApp life` say happened, per user number: only `done`
/// moves certainly did; a move `begun` with no `done` after it (a kill came) may or may not have.
struct AppLifeTruth {
    struct Line: Decodable {
        var user: Int
        var launch: Int
        var move: String
        var step: String?
        var state: String
        var anon: String
        var granted: Bool?
    }

    struct Inconsistent: Error, CustomStringConvertible {
        var description: String
    }

    /// Users who declined analytics, and the others.
    var declined: Set<Int> = []
    var consenting: Set<Int> = []
    /// Consenting users whose last done move completed the flow, or quit it.
    var completed: Set<Int> = []
    var quit: Set<Int> = []
    /// Consenting users with a completion (a quit) begun and never done.
    var mayHaveCompleted: Set<Int> = []
    var mayHaveQuit: Set<Int> = []
    /// Consenting users whose identification, or whose start, was done.
    var identified: Set<Int> = []
    var viewed: Set<Int> = []
    /// Each install's anonymous id.
    var anonymousID: [Int: String] = [:]
    /// Done moves per user (consent included).
    var doneMoves: [Int: Int] = [:]
    /// Moves a kill interrupted (begun, not done), all users.
    var interrupted = 0
    /// Per user, how many times each move was begun, and done.
    var begun: [Int: [String: Int]] = [:]
    var done: [Int: [String: Int]] = [:]

    /// Reads the truth files at `paths`.
    init(_ paths: [String]) throws {
        for path in paths {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let lines = try text.split(separator: "\n").map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
            guard let user = lines.first?.user, Set(lines.map(\.user)) == [user] else {
                throw Inconsistent(description: "\(path) is not one user's")
            }
            let anonymous = Set(lines.map(\.anon))
            guard anonymous.count == 1, let anon = anonymous.first else {
                throw Inconsistent(description: "user \(user) had several anonymous ids: \(anonymous)")
            }
            anonymousID[user] = anon
            if lines.contains(where: { $0.move == "consent" && $0.granted == false }) {
                declined.insert(user)
            } else {
                consenting.insert(user)
            }
            var lastDone: String?
            var done = 0
            var undone: Set<String> = []
            for (index, line) in lines.enumerated() where line.state == "begun" {
                begun[user, default: [:]][line.move, default: 0] += 1
                let after = index + 1 < lines.count ? lines[index + 1] : nil
                if let after, after.state == "done", after.move == line.move, after.launch == line.launch {
                    lastDone = line.move
                    done += 1
                    self.done[user, default: [:]][line.move, default: 0] += 1
                    if line.move == "identify" { identified.insert(user) }
                    if line.move == "view" { viewed.insert(user) }
                } else {
                    interrupted += 1
                    undone.insert(line.move)
                }
            }
            doneMoves[user] = done
            guard consenting.contains(user) else { continue }
            if lastDone == "complete_flow" { completed.insert(user) }
            if lastDone == "quit" { quit.insert(user) }
            if undone.contains("complete_flow") { mayHaveCompleted.insert(user) }
            if undone.contains("quit") { mayHaveQuit.insert(user) }
        }
        declined.forEach { identified.remove($0) }
        declined.forEach { viewed.remove($0) }
    }

    /// How many times `user` began `move`, and how many of those were done: the events of the
    /// move are stored at least `done` and at most `begun` times.
    func range(_ user: Int, _ move: String) -> ClosedRange<Int> {
        let low = done[user]?[move] ?? 0
        return low...max(low, begun[user]?[move] ?? 0)
    }

    /// The user number of every id an install recorded under: its anonymous id and `member-N`.
    var owners: [String: Int] {
        var owners: [String: Int] = [:]
        for (user, anon) in anonymousID {
            owners[anon] = user
            owners["member-\(user)"] = user
        }
        return owners
    }
}
