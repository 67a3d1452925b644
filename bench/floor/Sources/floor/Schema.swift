import CSQLite

/// navprefs' schema, its migrations copied from Sources/NavPrefsSQLite/SQLiteSchema.swift (run.sh
/// compares the resulting `.schema` with a database navprefs created and warns when they drift).
enum Schema {
    /// navprefs' `PRAGMA application_id` ("NPRF").
    static let applicationID: Int32 = 0x4E50_5246

    static let migrations: [(version: Int, summary: String, sql: String)] = [
        (1, "profiles, counters and the event log", """
            CREATE TABLE profiles (
                name          TEXT    PRIMARY KEY,
                created_at    INTEGER NOT NULL,
                last_event_id INTEGER NOT NULL
            ) STRICT, WITHOUT ROWID;

            CREATE TABLE counters (
                profile TEXT    PRIMARY KEY,
                value   INTEGER NOT NULL,
                version INTEGER NOT NULL
            ) STRICT, WITHOUT ROWID;

            CREATE TABLE events (
                profile    TEXT    NOT NULL,
                id         INTEGER NOT NULL,
                type       TEXT    NOT NULL,
                data       TEXT    NOT NULL,
                created_at INTEGER NOT NULL,
                PRIMARY KEY (profile, id)
            ) STRICT, WITHOUT ROWID;

            -- `default` always exists and reads as a fresh profile.
            INSERT INTO profiles (name, created_at, last_event_id) VALUES ('default', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), 0);
            INSERT INTO counters (profile, value, version) VALUES ('default', 0, 0);
            """),
        (2, "preferences in two layers; the counter becomes the numIndex preference; versions from the event sequence", """
            ALTER TABLE profiles ADD COLUMN defaults_version INTEGER NOT NULL DEFAULT 0;
            -- The id of the last event that changed any value or default: the ETag of the whole set.
            ALTER TABLE profiles ADD COLUMN preferences_version INTEGER NOT NULL DEFAULT 0;

            -- The application domain: values as canonical JSON text. A value's version is the id
            -- of the event that wrote it, so versions never repeat. A removal leaves a tombstone
            -- (value NULL) with the removal's version, so the versions of views over several keys
            -- (the font settings) never go back to one they had for other contents.
            CREATE TABLE preferences (
                profile TEXT    NOT NULL,
                key     TEXT    NOT NULL,
                value   TEXT,
                version INTEGER NOT NULL,
                PRIMARY KEY (profile, key)
            ) STRICT, WITHOUT ROWID;

            -- The registration domain (register(defaults:)), kept with the profile.
            CREATE TABLE registered_defaults (
                profile  TEXT    NOT NULL,
                key      TEXT    NOT NULL,
                value    TEXT    NOT NULL,
                position INTEGER NOT NULL,  -- registration order, kept in the JSON object
                PRIMARY KEY (profile, key)
            ) STRICT, WITHOUT ROWID;

            -- The seed stores numIndex as a base-10 string; its version becomes the id of the
            -- counter's last event (ETags held across the upgrade no longer match).
            INSERT INTO preferences (profile, key, value, version)
                SELECT c.profile, 'numIndex', json_quote(CAST(c.value AS TEXT)),
                       coalesce((SELECT max(e.id) FROM events e WHERE e.profile = c.profile AND e.type = 'counter'), 0)
                FROM counters c WHERE c.version > 0;
            UPDATE profiles SET preferences_version = coalesce((SELECT version FROM preferences s
                WHERE s.profile = profiles.name AND s.key = 'numIndex'), 0);
            DROP TABLE counters;
            """),
        (3, "event retention by age", """
            CREATE INDEX events_by_time ON events (created_at);
            """),
        (4, "navigation sessions", """
            -- A session's whole state as JSON (NavigationSession.json), read and written by the
            -- writer inside one transaction; depth, root and top are copies for listing.
            CREATE TABLE sessions (
                profile    TEXT    NOT NULL,
                id         TEXT    NOT NULL,
                state      TEXT    NOT NULL,
                version    INTEGER NOT NULL,
                depth      INTEGER NOT NULL,
                root       TEXT    NOT NULL,
                top        TEXT    NOT NULL,
                created_seq INTEGER NOT NULL,  -- the create's event id: creation order, whatever the clock
                created_at INTEGER NOT NULL,
                PRIMARY KEY (profile, id)
            ) STRICT, WITHOUT ROWID;
            """),
        (5, "access tokens (hashes only) and shared secrets", """
            CREATE TABLE tokens (
                id         TEXT    PRIMARY KEY,
                hash       TEXT    NOT NULL,
                profile    TEXT,               -- NULL: an admin token
                label      TEXT    NOT NULL,
                created_at INTEGER NOT NULL
            ) STRICT, WITHOUT ROWID;
            CREATE TABLE secrets (
                name  TEXT PRIMARY KEY,
                value TEXT NOT NULL
            ) STRICT, WITHOUT ROWID;
            """),
        (6, "markers of operations that must finish before the store is served (an import)", """
            -- `import-in-progress` is written by the first transaction of `navprefs import` and
            -- deleted by its last: while it is here the service refuses the database.
            CREATE TABLE store_markers (
                name  TEXT PRIMARY KEY,
                value TEXT NOT NULL
            ) STRICT, WITHOUT ROWID;
            """),
        (7, "idempotency keys; session labels, change times and idle expiry", """
            -- The answer to each write sent with an Idempotency-Key, committed with the write itself.
            CREATE TABLE idempotency_keys (
                profile     TEXT    NOT NULL,
                key         TEXT    NOT NULL,
                fingerprint TEXT    NOT NULL,  -- what makes a retry the same request
                created_at  INTEGER NOT NULL,
                status      INTEGER NOT NULL,  -- 0 only inside the transaction that claims the key
                headers     TEXT    NOT NULL,  -- the answer's own header fields: [[name, value], ...]
                body        TEXT    NOT NULL,
                PRIMARY KEY (profile, key)
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX idempotency_keys_by_time ON idempotency_keys (created_at);

            ALTER TABLE sessions ADD COLUMN label TEXT;
            -- When the session last changed; sessions unchanged for the idle expiry are deleted.
            ALTER TABLE sessions ADD COLUMN updated_at INTEGER NOT NULL DEFAULT 0;
            UPDATE sessions SET updated_at = created_at;
            CREATE INDEX sessions_by_update ON sessions (updated_at);
            """),
        (8, "idempotency keys remember the access token that made them (a cap per token)", """
            -- The id of the access token that made the keyed write; NULL in the open mode, and
            -- for keys recorded before this version (they expire within the idempotency window).
            ALTER TABLE idempotency_keys ADD COLUMN token TEXT;
            CREATE INDEX idempotency_keys_by_token ON idempotency_keys (token, created_at) WHERE token IS NOT NULL;
            """),
        (9, "the event log counts its bytes: each entry's size and where it starts in its profile's log", """
            -- Rebuilt so that the new columns come before `data`: reading them (the log's bound,
            -- checked on every write) never walks a large event's overflow pages.
            CREATE TABLE events_v9 (
                profile    TEXT    NOT NULL,
                id         INTEGER NOT NULL,
                log_offset INTEGER NOT NULL,  -- bytes of data before this entry in the profile's log
                log_size   INTEGER NOT NULL,  -- bytes of this entry's data
                created_at INTEGER NOT NULL,
                type       TEXT    NOT NULL,
                data       TEXT    NOT NULL,
                PRIMARY KEY (profile, id)
            ) STRICT, WITHOUT ROWID;
            INSERT INTO events_v9 (profile, id, log_offset, log_size, created_at, type, data)
                SELECT profile, id,
                       coalesce(sum(length(CAST(data AS BLOB))) OVER (PARTITION BY profile ORDER BY id
                                                                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0),
                       length(CAST(data AS BLOB)), created_at, type, data
                FROM events;
            DROP TABLE events;
            ALTER TABLE events_v9 RENAME TO events;
            CREATE INDEX events_by_time ON events (created_at);
            """),
        (10, "idempotency keys numbered per profile and per token, so their caps cost an index lookup", """
            ALTER TABLE idempotency_keys ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;        -- the key's number in its profile
            ALTER TABLE idempotency_keys ADD COLUMN token_seq INTEGER NOT NULL DEFAULT 0;  -- and in its token (0: none)
            \(SharedMigrations.numberIdempotencyKeys)
            """),
        (11, "who changed what: each value's and the defaults' last change, and each event's history", """
            -- When a stored value (or its removal) was written, and by whom: the author's JSON
            -- (token id, label, device). NULL for what was written before this version.
            ALTER TABLE preferences ADD COLUMN changed_at INTEGER;
            ALTER TABLE preferences ADD COLUMN author TEXT;
            ALTER TABLE profiles ADD COLUMN defaults_changed_at INTEGER;
            ALTER TABLE profiles ADD COLUMN defaults_author TEXT;
            -- The history an entry belongs to: a preference's key, numIndex for the counter,
            -- sliderValuekey for the font settings; NULL for the defaults and navigation. A key's
            -- history is then one range of its index, newest first. The table is copied rather
            -- than updated in place (half the time: 9.9 s against 18.8 s for 800,000 events,
            -- 160 MB, on a loaded 2-core machine), with `subject` before `data`, as the sizes are.
            CREATE TABLE events_v11 (
                profile    TEXT    NOT NULL,
                id         INTEGER NOT NULL,
                log_offset INTEGER NOT NULL,
                log_size   INTEGER NOT NULL,
                created_at INTEGER NOT NULL,
                type       TEXT    NOT NULL,
                subject    TEXT,
                data       TEXT    NOT NULL,
                PRIMARY KEY (profile, id)
            ) STRICT, WITHOUT ROWID;
            INSERT INTO events_v11 (profile, id, log_offset, log_size, created_at, type, subject, data)
                SELECT profile, id, log_offset, log_size, created_at, type,
                       CASE type
                           WHEN 'counter' THEN 'numIndex'
                           WHEN 'refresh' THEN 'sliderValuekey'
                           WHEN 'preference' THEN CASE WHEN json_valid(data) THEN
                               CASE WHEN json_type(data, '$.key') = 'text' THEN json_extract(data, '$.key') END END
                       END,
                       data
                FROM events;
            DROP TABLE events;
            ALTER TABLE events_v11 RENAME TO events;
            CREATE INDEX events_by_time ON events (created_at);
            -- Not the counter's events: its history reads the log by id (an entry here would cost
            -- every increment a page more in the write-ahead log).
            CREATE INDEX events_by_subject ON events (profile, subject, id) WHERE subject IS NOT NULL AND type <> 'counter';
            """),
    ]

    /// Creates the schema in a new database; leaves an existing one as it is.
    static func create(_ db: OpaquePointer) -> Bool {
        guard sqlite3_exec(db, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK else { return false }
        var version: Int32 = 0
        var statement: OpaquePointer?
        if sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &statement, nil) == SQLITE_OK, sqlite3_step(statement) == SQLITE_ROW {
            version = sqlite3_column_int(statement, 0)
        }
        sqlite3_finalize(statement)
        var ok = true
        if version == 0 {
            ok = sqlite3_exec(db, "PRAGMA application_id = \(applicationID)", nil, nil, nil) == SQLITE_OK
            for migration in migrations where ok {
                ok = sqlite3_exec(db, migration.sql, nil, nil, nil) == SQLITE_OK
                    && sqlite3_exec(db, "PRAGMA user_version = \(migration.version)", nil, nil, nil) == SQLITE_OK
            }
        }
        return sqlite3_exec(db, ok ? "COMMIT" : "ROLLBACK", nil, nil, nil) == SQLITE_OK && ok
    }
}
