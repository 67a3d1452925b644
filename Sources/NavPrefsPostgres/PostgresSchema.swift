import NavPrefsStore

/// The PostgreSQL layout, as an ordered list of migrations recorded in `navprefs_migrations`.
///
/// The tables mirror the SQLite store's (`SQLiteSchema`): values as canonical JSON text
/// (not `jsonb`, which would reorder object members and rewrite numbers), versions from each
/// profile's event sequence, tombstones for removed keys. Timestamps are milliseconds since the
/// Unix epoch from the database's clock, so several instances agree on the age of an event.
enum PostgresSchema {
    /// The key of the advisory lock under which a start probes the database and migrates it:
    /// instances that start together migrate one after the other, the later ones find nothing
    /// left to do, and no probe ever sees a migration half done (`navprefs_migrations` created
    /// but its first version not yet committed, then `profiles` committed: a database that looked
    /// like another program's).
    static let migrationLock: Int64 = 0x4E50_5246  // "NPRF"

    static let migrations: [(version: Int, summary: String, sql: String)] = [
        (1, "profiles, preferences in two layers, the event log, navigation sessions", """
            CREATE TABLE profiles (
                name                text   PRIMARY KEY,
                created_at          bigint NOT NULL,
                -- The profile's event sequence: every write takes the next id under this row's lock,
                -- which also orders the profile's commits by id.
                last_event_id       bigint NOT NULL DEFAULT 0,
                defaults_version    bigint NOT NULL DEFAULT 0,
                -- The id of the last event that changed any value or default: the ETag of the whole set.
                preferences_version bigint NOT NULL DEFAULT 0
            );

            -- The application domain; value NULL is a tombstone carrying the removal's version.
            CREATE TABLE preferences (
                profile text   NOT NULL,
                key     text   NOT NULL,
                value   text,
                version bigint NOT NULL,
                PRIMARY KEY (profile, key)
            );

            -- The registration domain (register(defaults:)), in registration order.
            CREATE TABLE registered_defaults (
                profile  text    NOT NULL,
                key      text    NOT NULL,
                value    text    NOT NULL,
                position integer NOT NULL,
                PRIMARY KEY (profile, key)
            );

            CREATE TABLE events (
                profile    text   NOT NULL,
                id         bigint NOT NULL,
                type       text   NOT NULL,
                data       text   NOT NULL,
                created_at bigint NOT NULL,
                PRIMARY KEY (profile, id)
            );
            CREATE INDEX events_by_time ON events (created_at);

            -- A session's whole state as JSON; depth, root and top are copies for listing.
            CREATE TABLE sessions (
                profile     text    NOT NULL,
                id          text    NOT NULL,
                state       text    NOT NULL,
                version     bigint  NOT NULL,
                depth       integer NOT NULL,
                root        text    NOT NULL,
                top         text    NOT NULL,
                created_seq bigint  NOT NULL,
                created_at  bigint  NOT NULL,
                PRIMARY KEY (profile, id)
            );

            -- `default` always exists and reads as a fresh profile.
            INSERT INTO profiles (name, created_at) VALUES ('default', \(PostgresStatements.now));
            """),
        (2, "access tokens (hashes only) and shared secrets", """
            CREATE TABLE tokens (
                id         text   PRIMARY KEY,
                hash       text   NOT NULL,
                profile    text,               -- NULL: an admin token
                label      text   NOT NULL,
                created_at bigint NOT NULL
            );
            CREATE TABLE secrets (
                name  text PRIMARY KEY,
                value text NOT NULL
            );
            """),
        (3, "markers of operations that must finish before the store is served (an import); profiles by name in byte order", """
            -- `import-in-progress` is written by the first transaction of `navprefs import` and
            -- deleted by its last: while it is here instances refuse to start.
            CREATE TABLE store_markers (
                name  text PRIMARY KEY,
                value text NOT NULL
            );
            -- Exports page through profiles in byte order, whatever the database's collation.
            CREATE INDEX profiles_by_name_bytes ON profiles ((name COLLATE "C"));
            """),
        (4, "idempotency keys; session labels, change times and idle expiry", """
            -- The answer to each write sent with an Idempotency-Key, committed with the write
            -- itself: a retry on any instance finds it.
            CREATE TABLE idempotency_keys (
                profile     text    NOT NULL,
                key         text    NOT NULL,
                fingerprint text    NOT NULL,
                created_at  bigint  NOT NULL,
                status      integer NOT NULL,  -- 0 only inside the transaction that claims the key
                headers     text    NOT NULL,  -- the answer's own header fields: [[name, value], ...]
                body        text    NOT NULL,
                PRIMARY KEY (profile, key)
            );
            CREATE INDEX idempotency_keys_by_time ON idempotency_keys (created_at);

            ALTER TABLE sessions ADD COLUMN label text;
            -- When the session last changed; sessions unchanged for the idle expiry are deleted.
            ALTER TABLE sessions ADD COLUMN updated_at bigint NOT NULL DEFAULT 0;
            UPDATE sessions SET updated_at = created_at;
            CREATE INDEX sessions_by_update ON sessions (updated_at);
            """),
        (5, "idempotency keys remember the access token that made them (a cap per token)", """
            -- The id of the access token that made the keyed write; NULL in the open mode, and
            -- for keys recorded before this version (they expire within the idempotency window).
            ALTER TABLE idempotency_keys ADD COLUMN token text;
            CREATE INDEX idempotency_keys_by_token ON idempotency_keys (token, created_at) WHERE token IS NOT NULL;
            """),
        (6, "the event log counts its bytes: each entry's size and where it starts in its profile's log", """
            ALTER TABLE events ADD COLUMN log_offset bigint NOT NULL DEFAULT 0;  -- bytes of data before it in its profile's log
            ALTER TABLE events ADD COLUMN log_size bigint NOT NULL DEFAULT 0;    -- bytes of its data
            UPDATE events SET log_size = octet_length(data);
            UPDATE events SET log_offset = o.start
            FROM (SELECT profile, id, coalesce(sum(log_size) OVER (PARTITION BY profile ORDER BY id
                                                                  ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS start
                  FROM events) AS o
            WHERE events.profile = o.profile AND events.id = o.id;
            """),
        (7, "idempotency keys numbered per profile and per token, so their caps cost an index lookup", """
            ALTER TABLE idempotency_keys ADD COLUMN seq bigint NOT NULL DEFAULT 0;        -- the key's number in its profile
            ALTER TABLE idempotency_keys ADD COLUMN token_seq bigint NOT NULL DEFAULT 0;  -- and in its token (0: none)
            \(SharedMigrations.numberIdempotencyKeys)
            """),
        (8, "who changed what: each value's and the defaults' last change, and each event's history", """
            -- When a stored value (or its removal) was written, and by whom: the author's JSON
            -- (token id, label, device). NULL for what was written before this version.
            ALTER TABLE preferences ADD COLUMN changed_at bigint;
            ALTER TABLE preferences ADD COLUMN author text;
            ALTER TABLE profiles ADD COLUMN defaults_changed_at bigint;
            ALTER TABLE profiles ADD COLUMN defaults_author text;
            -- The history an entry belongs to: a preference's key, numIndex for the counter,
            -- sliderValuekey for the font settings; NULL for the defaults and navigation. A key's
            -- history is then one range of its index, newest first.
            ALTER TABLE events ADD COLUMN subject text;
            UPDATE events SET subject = CASE type
                WHEN 'counter' THEN 'numIndex'
                WHEN 'refresh' THEN 'sliderValuekey'
                WHEN 'preference' THEN CASE WHEN json_typeof(data::json -> 'key') = 'string' THEN data::json ->> 'key' END
                END;
            -- Not the counter's events: its history reads the log by id (an entry here would cost
            -- every increment a page more in the write-ahead log).
            CREATE INDEX events_by_subject ON events (profile, subject, id) WHERE subject IS NOT NULL AND type <> 'counter';
            """),
    ]

    static var latestVersion: Int { migrations.last?.version ?? 0 }

    /// The version that added `store_markers`.
    static let markersVersion = 3

    /// What the database holds, read without changing it: NavPrefs' schema version (0: none),
    /// or tables of another program under NavPrefs' names, and an unfinished import's marker.
    static func probe(_ connection: PostgresConnection) throws -> StoreProbe {
        let hasMigrations = try connection.queryFirst("SELECT to_regclass('navprefs_migrations') IS NOT NULL")?.bool(0) ?? false
        var version = 0, isNavPrefs = true, unfinished: String?
        if hasMigrations {
            version = Int(try connection.queryFirst("SELECT coalesce(max(version), 0) FROM navprefs_migrations")?.int64(0) ?? 0)
        }
        if version == 0 {
            isNavPrefs = try foreignTables(connection) == 0
        } else if version >= markersVersion {
            unfinished = try connection.queryFirst("SELECT value FROM store_markers WHERE name = $1", .text(StoreMarker.importInProgress))?
                .text(0)
        }
        return StoreProbe(isNavPrefs: isNavPrefs, schemaVersion: version, latestSchemaVersion: latestVersion, unfinishedImport: unfinished,
                          claimedByAnotherProcess: false)
    }

    /// Tables named like NavPrefs' in the current schema.
    private static func foreignTables(_ connection: PostgresConnection) throws -> Int64 {
        try connection.queryFirst("""
            SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()
              AND table_name IN ('profiles', 'preferences', 'registered_defaults', 'events', 'sessions')
            """)?.int64(0) ?? 0
    }

    /// Runs `body` holding the migration lock: exclusively to probe and then migrate, shared to
    /// probe only (several readers at once, never beside a migration). Session-level, so it
    /// spans the migrations' own transactions; released however `body` ends.
    static func withMigrationLock<T>(_ connection: PostgresConnection, exclusive: Bool, _ body: () throws -> T) throws -> T {
        let (take, release) = exclusive
            ? ("SELECT pg_advisory_lock($1)", "SELECT pg_advisory_unlock($1)")
            : ("SELECT pg_advisory_lock_shared($1)", "SELECT pg_advisory_unlock_shared($1)")
        try connection.query(take, .integer(migrationLock))
        defer { _ = try? connection.query(release, .integer(migrationLock)) }
        return try body()
    }

    /// Brings the database to the latest schema, each migration in the transaction that records
    /// it; refuses a database whose schema is newer than this build, or that holds tables of
    /// another program under NavPrefs' names. The caller holds the migration lock exclusively
    /// (``withMigrationLock(_:exclusive:_:)``), from its probe on.
    static func migrate(_ connection: PostgresConnection, upTo target: Int = latestVersion) throws {
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS navprefs_migrations (
                version    integer     PRIMARY KEY,
                summary    text        NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """)
        let current = try connection.queryFirst("SELECT coalesce(max(version), 0) FROM navprefs_migrations")?.int64(0) ?? 0
        guard current <= latestVersion else {
            throw StoreError.unavailable(reason: "the database has NavPrefs schema version \(current); this build knows up to \(latestVersion)")
        }
        if current == 0 {
            guard try foreignTables(connection) == 0 else {
                throw StoreError.unavailable(reason: "the database already has tables named like NavPrefs' but no NavPrefs schema version")
            }
        }
        for migration in migrations where migration.version > current && migration.version <= target {
            try connection.execute("BEGIN")
            do {
                try connection.execute(migration.sql)
                try connection.query("INSERT INTO navprefs_migrations (version, summary) VALUES ($1, $2)",
                                     .integer(Int64(migration.version)), .text(migration.summary))
                try connection.execute("COMMIT")
            } catch {
                _ = try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }
}
