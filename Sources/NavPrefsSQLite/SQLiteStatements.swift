import NavPrefsStore

/// SQLite's dialect of the store's statements (``StoreStatement/sql(in:)``), and the statements
/// only this store runs. Lists arrive as JSON arrays, read with `json_each` (whose `key` column
/// is the position); times are milliseconds since 1970 from SQLite's clock. Parameters are
/// numbered (`$1` or `?1`); ``SQLiteStatement`` binds them by number.
enum SQLiteStatements: SQLDialect {
    /// Milliseconds since the Unix epoch, as SQL (`julianday` has millisecond resolution).
    static let now = "CAST(round((julianday('now') - 2440587.5) * 86400000) AS INTEGER)"

    static func list(_ parameter: Int, alias: String, of element: ListElement) -> String {
        "json_each($\(parameter)) AS \(alias)"
    }

    /// Nothing: the writer is the only writer, so its transaction is exclusive already.
    static let forUpdate = ""
    static let forUpdateSkipLocked = ""

    // The writes below are each followed by a SELECT of what they wrote, in the same SQL text
    // (``SQLiteStatement`` runs the statements before the last to their end, then reads the
    // last), where PostgreSQL's say `RETURNING`: SQLite gathers a `RETURNING` statement's rows in
    // a temporary b-tree it opens and closes on every run, and an `INSERT ... SELECT` that reads
    // the table it writes, or an `IN (SELECT ...)`, builds one too: 7.7 per increment, 6 % of
    // its CPU. (``write(_:returning:from:where:)`` is the same shape for the shared statements.)

    /// The counter's guarded change, in three statements: the stored row (or a deleted key's
    /// row, read through the registered default) is updated if the guards admit it; otherwise,
    /// when the profile has no row, one is inserted from the default (a row that exists makes
    /// the insert do nothing); the last reads the row back only if this write set it (its
    /// version is the event id just claimed, which no earlier write can have given it).
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

    /// SQLite compares text by its bytes (the BINARY collation every column here has).
    static func byteOrder(_ expression: String) -> String { expression }

    static func byteLength(_ expression: String) -> String { "length(CAST(\(expression) AS BLOB))" }

    /// `json_each` walks the batch; `json_extract` reads each cell as SQL reads it (JSON strings
    /// as TEXT, integers as INTEGER, null as NULL), which STRICT tables accept as they are.
    static func rows(_ parameter: Int, alias: String, columns: [(name: String, type: ListElement)]) -> String {
        let cells = columns.enumerated().map { "json_extract(item.value, '$[\($0.offset)]') AS \($0.element.name)" }
        return "(SELECT \(cells.joined(separator: ", ")) FROM json_each($\(parameter)) AS item) AS \(alias)"
    }

    /// The row read back only if the write changed one (`changes()`: the rows the last
    /// INSERT, UPDATE or DELETE of this connection changed), as `RETURNING` would give it.
    static func write(_ write: String, returning columns: String, from table: String?, where key: String) -> String {
        "\(write);\nSELECT \(columns)\(table.map { " FROM \($0)" } ?? "") WHERE \(key) AND changes() > 0"
    }

    // MARK: This store's own

    /// (profile): creates the profile's row unless it exists.
    static let createProfile = "INSERT INTO profiles (name, created_at, last_event_id) VALUES (?1, \(now), 0) ON CONFLICT DO NOTHING"

    /// (profile, touching preferences) → the new last event id, the defaults version.
    static let claimEventID = """
        UPDATE profiles SET last_event_id = last_event_id + 1,
            preferences_version = CASE WHEN ?2 THEN last_event_id + 1 ELSE preferences_version END
        WHERE name = ?1;
        SELECT last_event_id, defaults_version FROM profiles WHERE name = ?1
        """
}
