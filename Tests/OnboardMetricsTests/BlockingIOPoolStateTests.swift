import OnboardMetricsPostgres
import Testing

@Suite struct BlockingIOPoolStateTests {
    @Test func threadsStartOnlyWhenNoneIsIdle() {
        var state = BlockingIOPoolState<Int>(limit: 3)
        #expect(state.threads == 0)
        #expect(submit(1, to: &state) == .start)
        guard case .run(let first) = state.next() else {
            Issue.record("the started thread found no call")
            return
        }
        #expect(first == 1)
        // The first thread is busy: a second call starts a second thread.
        #expect(submit(2, to: &state) == .start)
        #expect(state.threads == 2)
        guard case .run(2) = state.next() else {
            Issue.record("the second thread found no call")
            return
        }
        // Both finish and wait: the next call wakes one of them and starts nothing.
        guard case .wait = state.next(), case .wait = state.next() else {
            Issue.record("a free thread found a call that was never made")
            return
        }
        #expect(state.idle == 2)
        #expect(submit(3, to: &state) == .wake)
        #expect(state.threads == 2)
        #expect(state.idle == 1)
    }

    @Test func callsArrivingBeforeAWokenThreadRunsEachGetAThread() {
        // Two calls that wait on each other (ingest's reader and writer) must both run even when
        // they arrive while one thread is idle and has not woken yet.
        var state = BlockingIOPoolState<Int>(limit: 8)
        #expect(submit(0, to: &state) == .start)
        guard case .run = state.next(), case .wait = state.next() else {
            Issue.record("the thread did not run its call and wait")
            return
        }
        #expect(submit(1, to: &state) == .wake)
        #expect(submit(2, to: &state) == .start)
        #expect(state.threads == 2)
    }

    @Test func atTheLimitCallsQueueInOrder() {
        var state = BlockingIOPoolState<Int>(limit: 2)
        #expect(submit(1, to: &state) == .start)
        #expect(submit(2, to: &state) == .start)
        #expect(submit(3, to: &state) == .queue)
        #expect(submit(4, to: &state) == .queue)
        #expect(state.threads == 2)
        var ran: [Int] = []
        while case .run(let work) = state.next() { ran.append(work) }
        #expect(ran == [1, 2, 3, 4])
        #expect(state.queued == 0)
    }

    @Test func aSpuriousWakeUpWaitsAgain() {
        var state = BlockingIOPoolState<Int>(limit: 1)
        #expect(submit(1, to: &state) == .start)
        guard case .run = state.next(), case .wait = state.next() else {
            Issue.record("the thread did not run its call and wait")
            return
        }
        #expect(!takeWakeUp(&state))
        #expect(submit(2, to: &state) == .wake)
        #expect(takeWakeUp(&state))
        #expect(!takeWakeUp(&state))
        guard case .run(2) = state.next() else {
            Issue.record("the woken thread did not find the call")
            return
        }
    }

    // Outside #expect, which may not mutate what it evaluates.
    private func submit(_ work: Int, to state: inout BlockingIOPoolState<Int>) -> BlockingIOPoolState<Int>.SubmitAction
    {
        state.submit(work)
    }

    private func takeWakeUp(_ state: inout BlockingIOPoolState<Int>) -> Bool {
        state.takeWakeUp()
    }
}
