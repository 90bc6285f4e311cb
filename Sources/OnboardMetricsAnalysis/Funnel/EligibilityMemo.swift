import OnboardMetricsReader
import OnboardMetricsSDK

/// Which of a flow's steps a session's context puts on its path, remembered per context object.
///
/// Why: sessions read from traces share their context dictionaries (a trace decoder makes each
/// distinct context once), so a report meets the same few contexts over and over, and evaluating
/// every condition for every session (hashing attribute names, copying the conditions) was a
/// sixth of a warm flow report. The key is the dictionary's storage: an entry keeps its context,
/// so that storage cannot be freed and reused by another dictionary while the entry is here, and
/// two equal contexts with different storage only take two entries. Pure and deterministic: the
/// answer is the conditions' answer, whatever was remembered.
struct EligibilityMemo: Sendable {
    private var offsets: [UInt: Int] = [:]
    /// Each remembered context's answers, one per step, one context after another.
    private var answers: [Bool] = []
    /// What keeps each remembered context's storage alive.
    private var contexts: [[String: JSONValue]] = []

    /// Contexts beyond this many are evaluated each time (a context unique to every session
    /// would only fill the memory).
    static let capacity = 1024

    /// Sets `eligible[step]` for each step: `conditions[step]` on `context`, true without one.
    mutating func evaluate(
        _ conditions: [Condition?], anyCondition: Bool, on context: [String: JSONValue], into eligible: inout [Bool]
    ) {
        guard anyCondition else {
            for index in eligible.indices { eligible[index] = true }
            return
        }
        let key = unsafeBitCast(context, to: UInt.self)
        if let offset = offsets[key] {
            for index in eligible.indices { eligible[index] = answers[offset + index] }
            return
        }
        for index in conditions.indices { eligible[index] = conditions[index]?.evaluate(context) ?? true }
        guard contexts.count < Self.capacity else { return }
        offsets[key] = answers.count
        answers.append(contentsOf: eligible)
        contexts.append(context)
    }
}
