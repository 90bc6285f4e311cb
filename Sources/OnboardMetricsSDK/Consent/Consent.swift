/// The user's answer to the app's analytics consent question.
public enum Consent: String, Sendable, Hashable, Codable {
    /// Not asked yet, or not answered.
    case pending
    /// Events may leave the device.
    case granted
    /// Nothing of this user leaves the device.
    case denied
}

/// What a ``ConsentGate`` does with events while consent is ``Consent/pending``.
public enum ConsentPolicy: Sendable, Hashable {
    /// Keeps them on the device (in the gate's folder) until consent is granted, then sends them
    /// in order; discards them if it is denied.
    case holdUntilGranted
    /// Sends them at once, but anonymously: under the gate's random installation id instead of
    /// the user's, without properties other than those the event kind requires, and without the
    /// session's context.
    case anonymousWhilePending
}
