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

    static let applyCounter = """
        WITH current AS (
            SELECT CASE WHEN s.value IS NOT NULL THEN CAST(json_extract(s.value, '$') AS INTEGER)
                        ELSE coalesce(CAST(json_extract(d.value, '$') AS INTEGER), 0) END AS value,
                   CASE WHEN s.value IS NOT NULL THEN s.version
                        ELSE max(coalesce(s.version, 0), p.defaults_version) END AS version
            FROM profiles p
            LEFT JOIN preferences s ON s.profile = p.name AND s.key = 'numIndex'
            LEFT JOIN registered_defaults d ON d.profile = p.name AND d.key = 'numIndex'
            WHERE p.name = ?1)
        INSERT INTO preferences (profile, key, value, version, changed_at, author)
        SELECT ?1, 'numIndex', json_quote(CAST(coalesce(?2, current.value + ?3) AS TEXT)), ?4, \(now), ?9
        FROM current
        WHERE current.value BETWEEN ?5 AND ?6
          AND (?7 IS NULL OR current.version IN (SELECT value FROM json_each(?7)))
          AND (?8 IS NULL OR current.version NOT IN (SELECT value FROM json_each(?8)))
        ON CONFLICT (profile, key) DO UPDATE SET value = excluded.value, version = excluded.version,
            changed_at = excluded.changed_at, author = excluded.author
        RETURNING CAST(json_extract(value, '$') AS INTEGER), version
        """

    static let appendEvent = """
        INSERT INTO events (profile, id, log_offset, log_size, created_at, type, data, subject)
        VALUES (?1, ?2, coalesce((SELECT log_offset + log_size FROM events WHERE profile = ?1 ORDER BY id DESC LIMIT 1), 0),
                length(CAST(?4 AS BLOB)), \(now), ?3, ?4, ?5)
        RETURNING created_at, log_offset, log_size
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

    // MARK: This store's own

    /// (profile): creates the profile's row unless it exists.
    static let createProfile = "INSERT INTO profiles (name, created_at, last_event_id) VALUES (?1, \(now), 0) ON CONFLICT DO NOTHING"

    /// (profile, touching preferences) → the new last event id, the defaults version.
    static let claimEventID = """
        UPDATE profiles SET last_event_id = last_event_id + 1,
            preferences_version = CASE WHEN ?2 THEN last_event_id + 1 ELSE preferences_version END
        WHERE name = ?1 RETURNING last_event_id, defaults_version
        """
}
