/// Every statement the store algorithm runs, by name. Each dialect maps a name to its SQL in one
/// place (`SQLiteStatements.swift`, `PostgresStatements.swift`); parameters are positional and
/// listed here with the columns each statement answers.
public enum StoreStatement: Sendable, Hashable, CaseIterable {
    // MARK: Preferences and defaults

    /// (profile, keys: texts) → per key in the order given: stored value (JSON text, NULL: none or
    /// a tombstone), its version (NULL: never stored), registered default (JSON text), the
    /// profile's defaults version, when the stored value or tombstone was written and its author
    /// (JSON text; NULL: not known), when the defaults last changed and their author. No rows
    /// when the profile does not exist.
    case readSlots
    /// (profile) → defaults version, preferences version, when the defaults last changed and
    /// their author. No row when the profile does not exist.
    case profileVersions
    /// The same, the profile's row staying locked until the transaction ends.
    case profileVersionsForUpdate
    /// (profile) → key, value (JSON text), version of every stored value.
    case storedPreferences
    /// (profile) → number of stored values (tombstones not counted).
    case countStoredPreferences
    /// (profile, keys: texts, values: texts of JSON, version, author JSON or NULL): stores each
    /// value under its key, changed now by the author.
    case upsertPreferences
    /// (profile, key, value: JSON text, version, author JSON or NULL): stores one value under its
    /// key, changed now by the author, bound as it is: no list is encoded around a large value and
    /// taken apart again, on the store's one writer.
    case upsertPreference
    /// (profile, keys: texts, version, author JSON or NULL): removes the stored values, leaving
    /// tombstones that carry the removal's version, time and author.
    case tombstonePreferences
    /// (profile, kept): deletes the tombstones of ordinary keys beyond the newest `kept`.
    case pruneTombstones
    /// (profile) → key, value (JSON text), in registration order.
    case registeredDefaults
    /// (profile): forgets every registered default.
    case deleteDefaults
    /// (profile, keys: texts, values: texts of JSON): registers each, in the order given.
    case insertDefaults
    /// (profile, version, author JSON or NULL): the version of the profile's registered
    /// defaults, changed now by the author.
    case setDefaultsVersion

    // MARK: The counter

    /// (profile, assigned value or NULL, delta, event id, lowest admissible current value, highest,
    /// versions If-Match admits (integers) or NULL, versions If-None-Match excludes or NULL,
    /// author JSON or NULL) →
    /// the new value and version; no row when a guard refused. One statement reads the counter
    /// through its layers (stored `numIndex`, else its registered default, else 0), applies the
    /// range guard that keeps the result within Int64 (C-7) and the precondition, and
    /// writes: no read-modify-write in Swift.
    case applyCounter

    // MARK: Navigation sessions

    /// (profile) → number of sessions.
    case countSessions
    /// (profile, id, state JSON, version, depth, root, top, label or NULL): a new session, created
    /// and updated now → created_at, updated_at.
    case insertSession
    /// (profile, id, state JSON, version, depth, root, top), updated now → label, created_at, updated_at.
    case updateSession
    /// (profile, id).
    case deleteSession
    /// (profile, id) → state JSON, version, label, created_at, updated_at.
    case readSession
    /// (profile, id) → the same; the row stays locked until the transaction ends.
    case readSessionForUpdate
    /// (profile, id) → version; the row stays locked until the transaction ends.
    case sessionVersionForUpdate
    /// (profile) → one row per session, oldest first: id, version, depth, root, top, label,
    /// created_at, updated_at; a profile without sessions answers one row of NULLs, a missing
    /// profile none.
    case listSessions

    // MARK: Profiles

    /// (after, limit) → name, created_at, last_event_id of the profiles whose names sort after
    /// `after` byte by byte, in that order, at most `limit`.
    case listProfiles

    // MARK: The event log

    /// (profile, id, type, data, subject or NULL) → the commit time (milliseconds since 1970) of
    /// the new entry, where it starts in the profile's log (the end of the newest entry before
    /// it) and its size in bytes, both also recorded with it (for ``trimEventLog``). The subject
    /// names the history the entry belongs to (``HistorySubject``). With several instances it
    /// also tells them (PostgreSQL's NOTIFY, delivered at commit).
    case appendEvent
    /// (profile) → the newest id issued (NULL: no such profile), the oldest id kept (NULL: none).
    case eventLogBounds
    /// (profile, after, limit) → id, type, data, created_at of the entries after `after`, oldest first.
    case eventsAfter
    /// (profile, after, limit, bytes) → the same, but only while the entries' data fit in
    /// `bytes` (the first entry whatever its size): a page of the log is bounded in bytes.
    case eventsAfterWithin
    /// (profile, bytes): deletes the profile's oldest entries until the rest fit in `bytes`
    /// (the newest always stays).
    case trimEventLog
    /// (): sets every entry's start in its profile's log from the sizes of the entries before it
    /// (after an import, which writes entries without).
    case renumberEventLog
    /// (profile, subject, before, limit, bytes) → id, type, data, created_at of the entries of
    /// that history older than `before`, newest first, at most `limit`; data is NULL for those
    /// past `bytes` of data (the first whatever its size). Not the counter's: see below.
    case historyBefore
    /// The same for the counter's history (`subject` unused): its events are not in the
    /// subject's index.
    case counterHistoryBefore

    // MARK: Access tokens and secrets

    /// (id, hash, profile or NULL, label, created_at).
    case insertToken
    /// () → id, hash, profile, label, created_at of every token, oldest first.
    case listTokens
    /// (id) → id, hash, profile, label, created_at.
    case token
    /// (id) → one row when a token was deleted.
    case deleteToken
    /// (name, value): stores a secret unless one has the name already.
    case insertSecretIfAbsent
    /// (name) → value.
    case secret

    // MARK: Health

    /// () → one row.
    case ping

    // MARK: Idempotency keys

    /// (profile, key, fingerprint, window in ms, token id or null) → one row when the key is
    /// claimed by this transaction: new, or older than the window and taken over. A key claimed
    /// by another transaction that has not ended makes this wait for it (PostgreSQL).
    case claimIdempotencyKey
    /// (profile, key) → fingerprint, status, headers (a JSON array of [name, value]), body.
    case idempotentAnswer
    /// (profile, key, status, headers, body): the answer of the write that claimed the key.
    case recordIdempotentAnswer
    /// (window in ms, limit) → one row per key deleted, at most `limit`, older than the window.
    case pruneIdempotencyKeys
    /// (profile, keep): deletes the profile's keys beyond its `keep` newest.
    case trimIdempotencyKeys
    /// (token id, keep): deletes the keys the token made, in any profile, beyond its `keep`
    /// newest (a few per call); rows another transaction holds are left to a later call.
    case trimIdempotencyKeysOfToken
    /// (profile) → when its oldest remembered key was made (NULL: none), how many keys it holds
    /// at most (by their numbers), the database's clock now.
    case idempotencyKeysKept

    // MARK: Quotas

    /// (profile) → one row: the bytes the profile holds against its quota (``QuotaSteps``).
    case profileUsage
    /// (profile) → one row: the bytes it holds against its quota, the bytes of its event log.
    case profileStorage
    /// () → per profile: name, every byte it holds (quota and event log), its event log's bytes;
    /// largest first.
    case profileUsages

    // MARK: Session expiry

    /// (idle in ms, limit) → profile, id of the sessions unchanged for longer than `idle`,
    /// least recently changed first.
    case idleSessions
    /// (profile, id, idle in ms) → version, when the session is still unchanged for longer than
    /// `idle`; the row stays locked until the transaction ends.
    case idleSessionForUpdate

    // MARK: Moving a store: export, import, and what an import leaves unfinished
    // (SQL in TransferStatements.swift; rows parameters are JSON arrays of row arrays,
    // read with ``SQLDialect/rows(_:alias:columns:)``)

    /// (after, limit) → name, created_at, last_event_id, defaults_version, preferences_version of
    /// the profiles whose names come after `after` in byte order, in byte order, at most `limit`.
    case exportProfiles
    /// (profile) → key, value (JSON text, NULL: a tombstone), version of every stored value and
    /// tombstone, keys in byte order.
    case exportPreferences
    /// (profile) → id, state JSON, version, created_seq, created_at, label, updated_at of every
    /// session, oldest first.
    case exportSessions
    /// () → name, value of every shared secret, names in byte order.
    case exportSecrets
    /// () → profiles holding anything (every profile but a `default` never written to), tokens, secrets.
    case contentCounts
    /// (name) → value of a marker (see ``setMarker``).
    case marker
    /// (name, value): records that an operation began (an import), replacing an earlier record.
    case setMarker
    /// (name): the operation finished.
    case deleteMarker
    /// (): deletes every event.
    case clearEvents
    /// (): deletes every session.
    case clearSessions
    /// (): deletes every registered default.
    case clearDefaults
    /// (): deletes every stored value and tombstone.
    case clearPreferences
    /// (): deletes every profile but `default`.
    case clearProfiles
    /// (): makes `default` a profile never written to again.
    case resetDefaultProfile
    /// (): deletes every access token.
    case clearTokens
    /// (): deletes every shared secret.
    case clearSecrets
    /// (rows of name, created_at, last_event_id, defaults_version, preferences_version): creates
    /// the profiles, or overwrites them (`default` exists in every store).
    case importProfiles
    /// (rows of profile, key, value JSON text or null for a tombstone, version).
    case importPreferences
    /// (rows of profile, key, value JSON text, position).
    case importDefaults
    /// (rows of profile, id, state JSON, version, depth, root, top, created_seq, created_at, label
    /// or null, updated_at).
    case importSessions
    /// (rows of profile, id, type, data, created_at).
    case importEvents
    /// (rows of id, hash, profile or null, label, created_at).
    case importTokens
    /// (rows of name, value).
    case importSecrets
}
