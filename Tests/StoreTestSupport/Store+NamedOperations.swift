public import NavPrefsCore
public import NavPrefsStore

/// The store's operations by name, for tests: each runs the ``StoreRead`` or ``StoreWrite`` value
/// the HTTP routes run, through ``Store/perform(_:)``, so a test exercises exactly what a request
/// does. The service never calls these: its writes go through `perform` with the request's
/// idempotency key, its reads through `perform(_:completion:)` on the event loop.
extension Store {
    /// The counter of `profile`. A profile nobody wrote to reads as a fresh suite: 0, version 0
    /// (every read of the store answers so: writing is what makes a profile exist).
    public func counter(of profile: ProfileName) async throws(StoreError) -> CounterState {
        try await perform((self as? any CounterCacheReading)?.counterRead(of: profile) ?? .counter(of: profile))
    }

    /// Applies `operation` atomically (one statement, no read-modify-write), creating the profile
    /// on its first write, and logs a `counter` event in the same transaction.
    /// - Throws: ``StoreError/preconditionFailed(current:)`` when `precondition` does not admit the
    ///   current version; ``StoreError/counter(_:)`` when the result would leave Int64.
    ///   Nothing is written or logged in either case.
    public func apply(_ operation: CounterOperation, toCounterOf profile: ProfileName, if precondition: WritePrecondition?)
        async throws(StoreError) -> CounterChange {
        try await perform(.counter(operation, of: profile, if: precondition))
    }

    // MARK: Preferences (UserDefaults' two layers), semantics P-1..P-7

    /// Every stored value and registered default of `profile` (none, version 0, for a profile
    /// nobody wrote to).
    public func preferences(of profile: ProfileName) async throws(StoreError) -> PreferenceSnapshot {
        try await perform(.preferences(of: profile))
    }

    /// One key of `profile` in both layers (an absent key is a slot with neither).
    public func preference(_ key: PreferenceKey, of profile: ProfileName) async throws(StoreError) -> PreferenceSlot {
        try await perform(.preference(key, of: profile))
    }

    /// Stores `value` under `key` (in the form a well-known key's view reads), logging the event
    /// of the key's view: `counter` for `numIndex`, `refresh` for the font keys, else `preference`.
    /// - Throws: ``StoreError/preconditionFailed(current:)``, ``StoreError/invalidValue(_:)`` for a
    ///   value that would break a typed view, ``StoreError/tooManyPreferences(limit:)``.
    public func setPreference(_ value: JSONValue, for key: PreferenceKey, of profile: ProfileName, if precondition: WritePrecondition?)
        async throws(StoreError) -> PreferenceChange {
        try await perform(try .setPreference(value, for: key, of: profile, if: precondition))
    }

    /// Deletes the stored value of `key`; its registered default, if any, shows again (P-6).
    /// When nothing is stored under `key`, nothing changes and nothing is logged, as
    /// `removeObject(forKey:)` does (the change's `eventID` is `nil`).
    public func removePreference(_ key: PreferenceKey, of profile: ProfileName, if precondition: WritePrecondition?)
        async throws(StoreError) -> PreferenceChange {
        try await perform(.removePreference(key, of: profile, if: precondition))
    }

    /// Sets and removes several keys in one transaction (`setValuesForKeys`, a JSON Merge
    /// Patch): `nil` removes. `precondition` applies to the version of the profile's preferences
    /// as a whole. Each key that changes logs its own event (the event its view logs), in the
    /// order given, all committed together; removing a key with no stored value changes nothing.
    public func updatePreferences(_ changes: [PreferenceUpdate], of profile: ProfileName, if precondition: WritePrecondition?)
        async throws(StoreError) -> PreferencesChange {
        try await perform(try .updatePreferences(changes, of: profile, if: precondition))
    }

    /// The registered defaults of `profile` (`register(defaults:)`), kept with the profile.
    public func defaults(of profile: ProfileName) async throws(StoreError) -> DefaultsState {
        try await perform(.defaults(of: profile))
    }

    /// Replaces the registered defaults of `profile` (`merging`: adds to them, as
    /// `register(defaults:)` does; a `null` member then removes that default).
    public func setDefaults(_ defaults: JSONObject, merging: Bool, of profile: ProfileName, if precondition: WritePrecondition?)
        async throws(StoreError) -> DefaultsChange {
        try await perform(try .setDefaults(defaults, merging: merging, of: profile, if: precondition))
    }

    // MARK: Font settings (seed 001), semantics F-1..F-7

    public func font(of profile: ProfileName) async throws(StoreError) -> FontState {
        try await perform(.font(of: profile))
    }

    /// Stores both font keys in one transaction and logs exactly one `refresh` event.
    public func setFont(_ settings: FontSettings, of profile: ProfileName, if precondition: WritePrecondition?)
        async throws(StoreError) -> FontChange {
        try await perform(.font(settings, of: profile, if: precondition))
    }

    // MARK: Navigation sessions (UINavigationController), semantics S-1..S-14

    /// Stores `session` under a new random id, creating the profile on its first write, and
    /// logs a `navigation` event (`create`).
    /// - Throws: ``StoreError/tooManySessions(limit:)``.
    public func createSession(_ session: NavigationSession, of profile: ProfileName) async throws(StoreError) -> SessionChange<Void> {
        try await perform(.createSession(session, of: profile))
    }

    /// The sessions of `profile`, oldest first (none for a profile nobody wrote to).
    public func sessions(of profile: ProfileName) async throws(StoreError) -> [SessionSummary] {
        try await perform(.sessions(of: profile))
    }

    /// One session. Throws ``StoreError/sessionNotFound(_:)``.
    public func session(_ id: SessionID, of profile: ProfileName) async throws(StoreError) -> SessionState {
        try await perform(.session(id, of: profile))
    }

    /// Runs `edit` on the session as stored, inside the write transaction, so that concurrent
    /// edits apply one after the other and none is lost. When the edit reports a change, the
    /// new state is stored with a new version and its `navigation` event is logged; otherwise
    /// nothing is written (a pop at the root, S-4).
    /// - Throws: ``StoreError/sessionNotFound(_:)``, ``StoreError/preconditionFailed(current:)``,
    ///   ``StoreError/navigation(_:)`` when the edit refuses (nothing written).
    public func updateSession<Result: Sendable>(
        _ id: SessionID, of profile: ProfileName, if precondition: WritePrecondition?,
        _ edit: @escaping @Sendable (inout NavigationSession) throws(NavigationError) -> SessionEdit<Result>
    ) async throws(StoreError) -> SessionChange<Result> {
        try await perform(.updateSession(id, of: profile, if: precondition, edit))
    }

    /// Deletes a session and logs a `navigation` event (`delete`); answers the event's id (also
    /// the session's last version).
    public func deleteSession(_ id: SessionID, of profile: ProfileName, if precondition: WritePrecondition?) async throws(StoreError) -> Int64 {
        try await perform(.deleteSession(id, of: profile, if: precondition))
    }

    // MARK: The whole profile

    /// Everything a client mirrors of `profile`, from one snapshot, with the id of the newest
    /// event that snapshot includes: a client that opens the event stream after that id misses
    /// nothing and sees nothing twice.
    public func state(of profile: ProfileName) async throws(StoreError) -> ProfileState {
        try await perform(.state(of: profile))
    }

    // MARK: Who changed what

    /// The changes of one history of `profile` (``HistorySubject``: a key's, the counter's, the
    /// font settings') older than `before` (all when `nil`), newest first, at most `limit` and,
    /// after the first, at most `maxBytes` of logged data, with the log's bounds.
    public func history(of subject: String, of profile: ProfileName, before: Int64?, limit: Int, maxBytes: Int = 1 << 20)
        async throws(StoreError) -> HistoryPage {
        try await perform(.history(of: subject, of: profile, before: before, limit: limit, maxBytes: maxBytes))
    }
}
