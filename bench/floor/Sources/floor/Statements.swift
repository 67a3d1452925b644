/// navprefs' statements for one increment, copied from Sources/NavPrefsSQLite/SQLiteStatements.swift
/// (`check-copies.py` compares them), in the order TransactionalStore+Counter.swift runs them: the
/// profile's row (only for a profile the writer does not know yet), the event id claim, the
/// guarded counter upsert, the event. `now` is interpolated as navprefs interpolates it.
enum Statements {
    /// Milliseconds since the Unix epoch, as SQL (`julianday` has millisecond resolution).
    static let now = "CAST(round((julianday('now') - 2440587.5) * 86400000) AS INTEGER)"

    static let applyCounter = """
        UPDATE preferences
        SET value = json_quote(CAST(coalesce(?2, \(storedCounter) + ?3) AS TEXT)), version = ?4, changed_at = \(now), author = ?9
        WHERE profile = ?1 AND key = 'numIndex'
          AND \(storedCounter) BETWEEN ?5 AND ?6
          AND (?7 IS NULL OR EXISTS (SELECT 1 FROM json_each(?7) AS j WHERE j.value = \(storedCounterVersion)))
          AND (?8 IS NULL OR NOT EXISTS (SELECT 1 FROM json_each(?8) AS j WHERE j.value = \(storedCounterVersion)));
        INSERT INTO preferences (profile, key, value, version, changed_at, author)
        SELECT ?1, 'numIndex', json_quote(CAST(coalesce(?2, current.value + ?3) AS TEXT)), ?4, \(now), ?9
        FROM (SELECT coalesce(CAST(json_extract(d.value, '$') AS INTEGER), 0) AS value, p.defaults_version AS version
              FROM profiles p
              LEFT JOIN registered_defaults d ON d.profile = p.name AND d.key = 'numIndex'
              WHERE p.name = ?1) AS current
        WHERE current.value BETWEEN ?5 AND ?6
          AND (?7 IS NULL OR EXISTS (SELECT 1 FROM json_each(?7) AS j WHERE j.value = current.version))
          AND (?8 IS NULL OR NOT EXISTS (SELECT 1 FROM json_each(?8) AS j WHERE j.value = current.version))
        ON CONFLICT DO NOTHING;
        SELECT CAST(json_extract(value, '$') AS INTEGER), version FROM preferences
        WHERE profile = ?1 AND key = 'numIndex' AND version = ?4
        """

    /// The counter of the `preferences` row being updated: its value, or for a deleted key's row
    /// (value NULL) the registered default, else 0. Qualified: inside `json_each`'s subqueries
    /// a bare `value` is the list element's.
    private static let storedCounter = """
        CASE WHEN preferences.value IS NOT NULL THEN CAST(json_extract(preferences.value, '$') AS INTEGER)
             ELSE coalesce((SELECT CAST(json_extract(d.value, '$') AS INTEGER) FROM registered_defaults d
                            WHERE d.profile = ?1 AND d.key = 'numIndex'), 0) END
        """

    /// The version the counter of the row being updated shows: a deleted key's row shows the
    /// later of its own and the profile's defaults version.
    private static let storedCounterVersion = """
        CASE WHEN preferences.value IS NOT NULL THEN preferences.version
             ELSE max(preferences.version, (SELECT defaults_version FROM profiles WHERE name = ?1)) END
        """

    static let appendEvent = """
        INSERT INTO events (profile, id, log_offset, log_size, created_at, type, data, subject)
        VALUES (?1, ?2, coalesce((SELECT log_offset + log_size FROM events WHERE profile = ?1 ORDER BY id DESC LIMIT 1), 0),
                length(CAST(?4 AS BLOB)), \(now), ?3, ?4, ?5);
        SELECT created_at, log_offset, log_size FROM events WHERE profile = ?1 AND id = ?2
        """
    /// (profile): creates the profile's row unless it exists.
    static let createProfile = "INSERT INTO profiles (name, created_at, last_event_id) VALUES (?1, \(now), 0) ON CONFLICT DO NOTHING"

    /// (profile, touching preferences) → the new last event id, the defaults version.
    static let claimEventID = """
        UPDATE profiles SET last_event_id = last_event_id + 1,
            preferences_version = CASE WHEN ?2 THEN last_event_id + 1 ELSE preferences_version END
        WHERE name = ?1;
        SELECT last_event_id, defaults_version FROM profiles WHERE name = ?1
        """

    /// The counter as a read sees it (a GET that misses the floor's cache): the same layers as
    /// the upsert's `current` (the stored value, else the registered default, else 0).
    static let readCounter = """
        SELECT CASE WHEN s.value IS NOT NULL THEN CAST(json_extract(s.value, '$') AS INTEGER)
                    ELSE coalesce(CAST(json_extract(d.value, '$') AS INTEGER), 0) END,
               CASE WHEN s.value IS NOT NULL THEN s.version
                    ELSE max(coalesce(s.version, 0), p.defaults_version) END
        FROM profiles p
        LEFT JOIN preferences s ON s.profile = p.name AND s.key = 'numIndex'
        LEFT JOIN registered_defaults d ON d.profile = p.name AND d.key = 'numIndex'
        WHERE p.name = ?1
        """
}
