import Foundation
import Testing

/// The example app's `life` driver (examples/onboarding-app, SDK product only) as phones live it:
/// each simulated install is launched, killed with SIGKILL at a random moment, and launched
/// again on the same folder until it exits by itself. Its truth file says which moves certainly
/// happened (`done`: the SDK made them durable) and which may have (`begun` alone); what
/// `funnel serve` stored must agree — one session per consenting user, each person counted once
/// across their anonymous and identified ids, the completions the truth files say, and nothing at
/// all of the users who declined analytics.
@Suite(.serialized) struct AppLifeTests {
    /// Simulated installs: the hundred the issue asks for (about 30 s here).
    static let users = 100
    /// Installs living at once.
    static let parallel = 8
    /// Launches at most per install; the first `killedLaunches` are each killed after 50–400 ms.
    static let maximumLaunches = 30
    static let killedLaunches = 20

    /// One install's life: its truth file and how it was launched.
    struct Life: Sendable {
        var user: Int
        var launches: Int
        var kills: Int
        var truth: String
    }

    @Test func killedAndRelaunchedInstallsLeaveWhatTheirTruthFilesSay() async throws {
        let executable = try SDKExampleAppTests.exampleExecutable()
        let fixture = try await CollectorFixture.start("app_life")
        defer { fixture.close() }
        let flows = TestDatabase.packageRoot.appendingPathComponent("examples/flows").path
        let began = Date()
        var lives: [Life] = []
        try await withThrowingTaskGroup(of: Life.self) { group in
            var next = 0
            while next < Self.users || !group.isEmpty {
                while next < Self.users, next < lives.count + Self.parallel {
                    let user = next
                    group.addTask {
                        try await Self.live(user: user, executable: executable, fixture: fixture, flows: flows)
                    }
                    next += 1
                }
                if let life = try await group.next() { lives.append(life) }
            }
        }
        let seconds = Date().timeIntervalSince(began)
        let kills = lives.map(\.kills).reduce(0, +)
        let launches = lives.map(\.launches).reduce(0, +)
        print(
            "app life: \(Self.users) installs, \(launches) launches, \(kills) kills, \(String(format: "%.1f", seconds)) s"
        )
        #expect(kills >= Self.users, "the installs were hardly killed")

        let truth = try AppLifeTruth(lives.map(\.truth))
        print(
            "app life: \(truth.declined.count) declined, \(truth.completed.count) completed, \(truth.quit.count) quit, "
                + "\(truth.doneMoves.values.reduce(0, +)) moves done, \(truth.interrupted) interrupted by a kill")
        #expect(truth.interrupted > 0, "no kill came during a move")
        print(
            "app life: \(truth.declined.count) declined, \(truth.completed.count) completed, \(truth.quit.count) quit, "
                + "\(truth.doneMoves.values.reduce(0, +)) moves done, \(truth.interrupted) interrupted by a kill")
        #expect(truth.interrupted > 0, "no kill came during a move")
        #expect(!truth.declined.isEmpty && !truth.completed.isEmpty && !truth.quit.isEmpty)
        // Declining users still went through the onboarding: their moves were made, and dropped.
        #expect(truth.declined.allSatisfy { truth.doneMoves[$0, default: 0] >= 2 })

        let stored = try await StoredEvents.read(fixture.configuration)
        #expect(stored.count == stored.distinctIDs, "an event stored twice")
        print("app life: \(stored.count) events stored, \(stored.sessionsWithHoles) sessions missing some")
        // The store writes each move's events ahead of the transport: a kill loses none of a move
        // it saved, so no session has a hole in its seq.
        #expect(stored.sessionsWithHoles == 0, "sessions with a hole in their seq")

        // Nothing of a declining user: not their ids, not their anonymous id in a link, not their
        // number in a session's context.
        let declinedIDs = Set(truth.declined.flatMap { [truth.anonymousID[$0] ?? "?", "member-\($0)"] })
        let leaked = stored.rows.filter { row in
            declinedIDs.contains(row.userID) || declinedIDs.contains(row.linkedAnonymousID ?? "")
                || row.installNumber.map { truth.declined.contains($0) } ?? false
        }
        #expect(leaked.isEmpty, "events of declining users reached the collector: \(leaked.prefix(3))")

        // One session per consenting user, and every event of a user in it.
        let owner = truth.owners
        var sessionsByUser: [Int: Set<String>] = [:]
        for row in stored.rows {
            let user = try #require(owner[row.userID], "an event of an unknown user \(row.userID)")
            sessionsByUser[user, default: []].insert(row.sessionID)
        }
        #expect(Set(sessionsByUser.keys) == truth.consenting)
        #expect(sessionsByUser.values.allSatisfy { $0.count == 1 }, "\(sessionsByUser.filter { $0.value.count > 1 })")

        // Each move's own event is stored at least as often as the move was done and at most as
        // often as it was begun: a done move is never lost, and a move is never stored twice.
        let kinds = [
            "view": "session_started", "skip": "step_skipped", "back": "step_back", "quit": "flow_abandoned",
            "complete_flow": "flow_completed", "identify": "custom",
        ]
        for user in truth.consenting.sorted() {
            let rows = stored.rows.filter { owner[$0.userID] == user }
            for (move, kind) in kinds {
                let count = rows.filter { $0.kind == kind }.count
                #expect(truth.range(user, move).contains(count), "user \(user): \(count) \(kind) for \(move)")
            }
            // Every step completed by a move (`complete`, and the account step by `complete_flow`).
            let completions = rows.filter { $0.kind == "step_completed" }.count
            let low = truth.range(user, "complete").lowerBound + truth.range(user, "complete_flow").lowerBound
            let high = truth.range(user, "complete").upperBound + truth.range(user, "complete_flow").upperBound
            #expect((low...high).contains(completions), "user \(user): \(completions) step_completed")
        }

        // Completions: every user whose last done move completed the flow; no one who never began
        // to; the ones whose completion was begun when a kill came may go either way. Quits alike.
        let completedUsers = Set(stored.rows.filter { $0.kind == "flow_completed" }.compactMap { owner[$0.userID] })
        #expect(truth.completed.isSubset(of: completedUsers))
        #expect(completedUsers.isSubset(of: truth.completed.union(truth.mayHaveCompleted)))
        let quitUsers = Set(stored.rows.filter { $0.kind == "flow_abandoned" }.compactMap { owner[$0.userID] })
        #expect(truth.quit.isSubset(of: quitUsers))
        #expect(quitUsers.isSubset(of: truth.quit.union(truth.mayHaveQuit)))

        // The link of every identification that was done joins the install's anonymous id.
        let links = Set(
            stored.rows.filter { $0.name == "$identify" }.map { "\($0.userID) \($0.linkedAnonymousID ?? "")" })
        let expectedLinks = Set(truth.identified.map { "member-\($0) \(truth.anonymousID[$0] ?? "?")" })
        #expect(expectedLinks.isSubset(of: links))
        // A kill between the link and the saved identity makes the next launch link again: the
        // same pair, which merges nothing more (the per-user counts below); never another pair.
        let possibleLinks = Set(truth.consenting.map { "member-\($0) \(truth.anonymousID[$0] ?? "?")" })
        #expect(links.isSubset(of: possibleLinks), "a link between two installs' ids")

        // The reports: per session and per user, each consenting user started once.
        let perSession = try await Self.totals(fixture, flows: flows, per: "session")
        let perUser = try await Self.totals(fixture, flows: flows, per: "user")
        let lostStarts = truth.consenting.subtracting(truth.viewed).count
        #expect((truth.consenting.count - lostStarts...truth.consenting.count).contains(perSession.started))
        #expect(perUser.started == perSession.started, "a person counted under two ids")
        #expect(perSession.completed == completedUsers.count && perUser.completed == completedUsers.count)
    }

    /// Launches user `user`'s install until it exits by itself, killing the first launches.
    static func live(user: Int, executable: String, fixture: CollectorFixture, flows: String) async throws -> Life {
        let folder = fixture.folder.appendingPathComponent("install-\(user)").path
        let truth = fixture.folder.appendingPathComponent("truth-\(user).jsonl").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var random = SeededRandom(seed: 0xA11F_0000 &+ UInt64(user))
        var kills = 0
        for launch in 1...maximumLaunches {
            let killAfter = launch <= killedLaunches ? Double(50 + random.next() % 351) / 1000 : nil
            let outcome = try await AppLaunch.run(
                executable,
                [
                    "life", "--collector", fixture.endpoint.absoluteString, "--key", fixture.key, "--container",
                    folder, "--user", "\(user)", "--truth", truth, "--flows", flows,
                ], killAfter: killAfter, timeout: 30, log: folder + "/launch-\(launch)")
            if outcome.killed {
                kills += 1
                continue
            }
            guard outcome.status == 0 else {
                throw AppLaunch.Timeout(
                    description: "user \(user) launch \(launch) exited \(outcome.status): \(outcome.errors)")
            }
            return Life(user: user, launches: launch, kills: kills, truth: truth)
        }
        throw AppLaunch.Timeout(description: "user \(user) did not finish in \(maximumLaunches) launches")
    }

    static func totals(_ fixture: CollectorFixture, flows: String, per: String) async throws -> (
        started: Int, completed: Int
    ) {
        let report = try await FunnelProcess.run([
            "report", "--flow", flows + "/health-study.json", "--format", "json", "--per", per, "--database-url",
            fixture.url, "--quiet",
        ])
        #expect(report.status == 0, "\(report.errors)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(report.output.utf8)) as? [String: Any])
        let groups = try #require(json["groups"] as? [[String: Any]])
        let totals = try #require(groups.first?["totals"] as? [String: Any])
        return (totals["started"] as? Int ?? -1, totals["completed"] as? Int ?? -1)
    }
}
