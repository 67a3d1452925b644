import NavPrefsStore

/// PostgreSQL's dialect of the store's statements (``StoreStatement/sql(in:)``), and the
/// statements only this store runs. Lists arrive as array literals (`$2::text[]`); times are milliseconds since 1970
/// from the database's clock, so several instances agree on the age of an event.
enum PostgresStatements: SQLDialect {
    /// Milliseconds since the Unix epoch by the database's clock, as SQL.
    static let now = "floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint"

    static func list(_ parameter: Int, alias: String, of element: ListElement) -> String {
        let type = element == .text ? "text[]" : "bigint[]"
        return "unnest($\(parameter)::\(type)) WITH ORDINALITY AS \(alias)(value, key)"
    }

    /// Rows read this way stay locked until the transaction ends: concurrent edits of one
    /// session, on any instance, wait for each other.
    static let forUpdate = " FOR UPDATE"

    /// Rows another transaction holds are left out: a step that tidies rows of other profiles
    /// (the cap per token) never waits for their writes.
    static let forUpdateSkipLocked = " FOR UPDATE SKIP LOCKED"

    static let applyCounter = """
        WITH current AS (
            SELECT CASE WHEN s.value IS NOT NULL THEN (s.value::json #>> '{}')::bigint
                        ELSE coalesce((d.value::json #>> '{}')::bigint, 0) END AS value,
                   CASE WHEN s.value IS NOT NULL THEN s.version
                        ELSE greatest(coalesce(s.version, 0), p.defaults_version) END AS version
            FROM profiles p
            LEFT JOIN preferences s ON s.profile = p.name AND s.key = 'numIndex'
            LEFT JOIN registered_defaults d ON d.profile = p.name AND d.key = 'numIndex'
            WHERE p.name = $1)
        INSERT INTO preferences (profile, key, value, version, changed_at, author)
        SELECT $1, 'numIndex', to_json(coalesce($2::bigint, (current.value::numeric + $3::bigint)::bigint)::text)::text, $4::bigint,
               \(now), $9::text
        FROM current
        WHERE current.value BETWEEN $5::bigint AND $6::bigint
          AND ($7::bigint[] IS NULL OR current.version = ANY($7::bigint[]))
          AND ($8::bigint[] IS NULL OR current.version <> ALL($8::bigint[]))
        ON CONFLICT (profile, key) DO UPDATE SET value = excluded.value, version = excluded.version,
            changed_at = excluded.changed_at, author = excluded.author
        RETURNING (value::json #>> '{}')::bigint, version
        """

    /// Every instance's listener hears `profile:id` when the transaction commits.
    static let appendEvent = """
        WITH logged AS (
            INSERT INTO events (profile, id, type, data, created_at, log_offset, log_size, subject)
            VALUES ($1::text, $2::bigint, $3::text, $4::text, \(now),
                    coalesce((SELECT log_offset + log_size FROM events WHERE profile = $1::text ORDER BY id DESC LIMIT 1), 0),
                    octet_length($4::text), $5::text)
            RETURNING created_at, log_offset, log_size)
        SELECT created_at, log_offset, log_size, pg_notify('\(PostgresListener.channel)', $1::text || ':' || $2::bigint::text) FROM logged
        """

    /// The "C" collation compares bytes: the database's own (en_US, an ICU locale) would order
    /// `B` and `a` otherwise than SQLite does.
    static func byteOrder(_ expression: String) -> String { "(\(expression) COLLATE \"C\")" }

    static func byteLength(_ expression: String) -> String { "octet_length(\(expression))" }

    /// The batch is parsed once (`jsonb`); `->>` reads a cell as text (NULL for null), cast to
    /// `bigint` for integer columns.
    static func rows(_ parameter: Int, alias: String, columns: [(name: String, type: ListElement)]) -> String {
        let cells = columns.enumerated().map { index, column in
            "(item.value ->> \(index))" + (column.type == .integer ? "::bigint" : "") + " AS \(column.name)"
        }
        return "(SELECT \(cells.joined(separator: ", ")) FROM jsonb_array_elements($\(parameter)::jsonb) AS item(value)) AS \(alias)"
    }

    static func write(_ write: String, returning columns: String, from table: String?, where key: String) -> String {
        "\(write)\nRETURNING \(columns)"
    }

    // MARK: This store's own

    /// (profile, touching preferences) → the new last event id, whether the row was inserted
    /// (`xmax = 0` holds for a row this statement inserted, not for one it updated), the defaults
    /// version. The row's lock is held until the transaction ends.
    static let claimCreating = """
        INSERT INTO profiles AS p (name, created_at, last_event_id, preferences_version)
        VALUES ($1, \(now), 1, CASE WHEN $2::boolean THEN 1 ELSE 0 END)
        ON CONFLICT (name) DO UPDATE SET last_event_id = p.last_event_id + 1,
            preferences_version = CASE WHEN $2::boolean THEN p.last_event_id + 1 ELSE p.preferences_version END
        RETURNING last_event_id, xmax = 0, defaults_version
        """

    /// The same for a profile that must exist already: no row when it does not.
    static let claimExisting = """
        UPDATE profiles SET last_event_id = last_event_id + 1,
            preferences_version = CASE WHEN $2::boolean THEN last_event_id + 1 ELSE preferences_version END
        WHERE name = $1
        RETURNING last_event_id, false, defaults_version
        """

    /// (profile, after, last) → id, type, data, created_at of the entries in `after + 1 ... last`.
    static let eventsBetween = "SELECT id, type, data, created_at FROM events WHERE profile = $1 AND id > $2 AND id <= $3 ORDER BY id"

    /// (profiles, positions) → profile, id, type, data, created_at of every entry after each
    /// profile's position (the listener's catch-up).
    static let eventsAfterPositions = """
        SELECT e.profile, e.id, e.type, e.data, e.created_at
        FROM unnest($1::text[], $2::bigint[]) AS k(profile, after)
        JOIN events e ON e.profile = k.profile AND e.id > k.after
        ORDER BY e.profile, e.id
        """
}
