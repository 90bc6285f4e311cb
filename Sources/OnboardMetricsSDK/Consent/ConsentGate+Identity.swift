extension ConsentGate {
    /// Opts the user out and forgets them in one call: ``optOut()`` (consent denied, held events
    /// deleted, a new installation id), then ``SessionStore/reset()`` (a new anonymous identity,
    /// the sessions forgotten). Opting out first means that nothing the reset records — a running
    /// session's closing event — leaves the device when the store sends through this gate.
    public func optOut(forgetting store: SessionStore) throws {
        try optOut()
        try store.reset()
    }
}
