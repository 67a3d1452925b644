/// What differs between SQL dialects in statements that are otherwise written once
/// (``StoreStatement/sql(in:)``): how a list parameter becomes a table, the clock, row locks,
/// and the few statements a dialect must say its own way.
public protocol SQLDialect {
    /// A table named `alias` of the elements of list parameter `$parameter`, with columns
    /// `value` (the element) and `key` (its position; ascending in list order).
    static func list(_ parameter: Int, alias: String, of element: ListElement) -> String
    /// Milliseconds since the Unix epoch by the database's clock, as SQL.
    static var now: String { get }
    /// What ends a `SELECT` whose rows stay locked until the transaction ends (empty where a
    /// write transaction is exclusive already).
    static var forUpdate: String { get }
    /// Like ``forUpdate``, but rows another transaction holds are left out rather than waited
    /// for (empty where a write transaction is exclusive already).
    static var forUpdateSkipLocked: String { get }
    /// The dialect's ``StoreStatement/applyCounter``: standard SQL cannot read a JSON number.
    static var applyCounter: String { get }
    /// The dialect's ``StoreStatement/appendEvent`` (PostgreSQL also notifies other instances).
    static var appendEvent: String { get }
    /// `expression` as compared and ordered by its UTF-8 bytes, whatever the database's
    /// collation: listings and exports come in one order from every store.
    static func byteOrder(_ expression: String) -> String
    /// The length of text `expression` in bytes of UTF-8.
    static func byteLength(_ expression: String) -> String
    /// A table named `alias` of the rows in parameter `$parameter`: a JSON array holding one
    /// array per row, whose elements are the `columns` in order (strings, integers or null).
    /// One statement imports a whole batch, instead of a round trip per row.
    static func rows(_ parameter: Int, alias: String, columns: [(name: String, type: ListElement)]) -> String
    /// `write`, which changes at most one row, with `columns` of the row it changed as its one
    /// row (none when it changed none): PostgreSQL's `RETURNING`. SQLite's opens and closes a
    /// temporary b-tree on every run, so it reads the row back in a statement of its own, from
    /// `table` where `key` holds (without a table, `columns` are constants).
    static func write(_ write: String, returning columns: String, from table: String?, where key: String) -> String
}

extension SQLDialect {
    /// `statement` in this dialect.
    public static func sql(_ statement: StoreStatement) -> String { statement.sql(in: Self.self) }
}

/// The type of a list parameter's elements.
public enum ListElement: Sendable {
    case text, integer
}

extension StoreStatement {
    /// The statement's SQL in `dialect`; parameters are `$1`, `$2`, ... in both dialects.
    public func sql<Dialect: SQLDialect>(in dialect: Dialect.Type) -> String {
        switch self {
        case .readSlots:
            """
            SELECT s.value, s.version, d.value, p.defaults_version, s.changed_at, s.author, p.defaults_changed_at, p.defaults_author
            FROM profiles p
            CROSS JOIN \(dialect.list(2, alias: "k", of: .text))
            LEFT JOIN preferences s ON s.profile = p.name AND s.key = k.value
            LEFT JOIN registered_defaults d ON d.profile = p.name AND d.key = k.value
            WHERE p.name = $1
            ORDER BY k.key
            """
        case .profileVersions:
            "SELECT defaults_version, preferences_version, defaults_changed_at, defaults_author FROM profiles WHERE name = $1"
        case .profileVersionsForUpdate:
            "SELECT defaults_version, preferences_version, defaults_changed_at, defaults_author FROM profiles WHERE name = $1" + dialect.forUpdate
        case .storedPreferences:
            "SELECT key, value, version FROM preferences WHERE profile = $1 AND value IS NOT NULL"
        case .countStoredPreferences:
            "SELECT count(*) FROM preferences WHERE profile = $1 AND value IS NOT NULL"
        case .upsertPreferences:
            // `WHERE true` keeps SQLite from reading ON CONFLICT as part of the join.
            """
            INSERT INTO preferences (profile, key, value, version, changed_at, author)
            SELECT CAST($1 AS TEXT), k.value, v.value, CAST($4 AS BIGINT), \(dialect.now), CAST($5 AS TEXT)
            FROM \(dialect.list(2, alias: "k", of: .text)) JOIN \(dialect.list(3, alias: "v", of: .text)) ON v.key = k.key
            WHERE true
            ON CONFLICT (profile, key) DO UPDATE SET value = excluded.value, version = excluded.version,
                changed_at = excluded.changed_at, author = excluded.author
            """
        case .upsertPreference:
            """
            INSERT INTO preferences (profile, key, value, version, changed_at, author)
            VALUES ($1, $2, $3, $4, \(dialect.now), CAST($5 AS TEXT))
            ON CONFLICT (profile, key) DO UPDATE SET value = excluded.value, version = excluded.version,
                changed_at = excluded.changed_at, author = excluded.author
            """
        case .tombstonePreferences:
            """
            UPDATE preferences SET value = NULL, version = $3, changed_at = \(dialect.now), author = CAST($4 AS TEXT)
            WHERE profile = $1 AND key IN (SELECT k.value FROM \(dialect.list(2, alias: "k", of: .text)))
            """
        case .pruneTombstones:
            """
            DELETE FROM preferences WHERE profile = $1 AND value IS NULL AND key NOT IN ('numIndex', 'fontSizekey', 'sliderValuekey')
              AND version < (SELECT version FROM preferences WHERE profile = $1 AND value IS NULL
                             AND key NOT IN ('numIndex', 'fontSizekey', 'sliderValuekey')
                             ORDER BY version DESC LIMIT 1 OFFSET $2)
            """
        case .registeredDefaults:
            "SELECT key, value FROM registered_defaults WHERE profile = $1 ORDER BY position"
        case .deleteDefaults:
            "DELETE FROM registered_defaults WHERE profile = $1"
        case .insertDefaults:
            """
            INSERT INTO registered_defaults (profile, key, value, position)
            SELECT CAST($1 AS TEXT), k.value, v.value, k.key
            FROM \(dialect.list(2, alias: "k", of: .text)) JOIN \(dialect.list(3, alias: "v", of: .text)) ON v.key = k.key
            """
        case .setDefaultsVersion:
            "UPDATE profiles SET defaults_version = $2, defaults_changed_at = \(dialect.now), defaults_author = CAST($3 AS TEXT) WHERE name = $1"
        case .applyCounter:
            dialect.applyCounter
        case .appendEvent:
            dialect.appendEvent
        case .countSessions:
            "SELECT count(*) FROM sessions WHERE profile = $1"
        case .insertSession:
            dialect.write("""
                INSERT INTO sessions (profile, id, state, version, depth, root, top, created_seq, created_at, label, updated_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $4, \(dialect.now), $8, \(dialect.now))
                """, returning: "created_at, updated_at", from: "sessions", where: "profile = $1 AND id = $2")
        case .updateSession:
            dialect.write("""
                UPDATE sessions SET state = $3, version = $4, depth = $5, root = $6, top = $7, updated_at = \(dialect.now)
                WHERE profile = $1 AND id = $2
                """, returning: "label, created_at, updated_at", from: "sessions", where: "profile = $1 AND id = $2")
        case .deleteSession:
            "DELETE FROM sessions WHERE profile = $1 AND id = $2"
        case .readSession:
            "SELECT state, version, label, created_at, updated_at FROM sessions WHERE profile = $1 AND id = $2"
        case .readSessionForUpdate:
            "SELECT state, version, label, created_at, updated_at FROM sessions WHERE profile = $1 AND id = $2" + dialect.forUpdate
        case .sessionVersionForUpdate:
            "SELECT version FROM sessions WHERE profile = $1 AND id = $2" + dialect.forUpdate
        case .listSessions:
            """
            SELECT s.id, s.version, s.depth, s.root, s.top, s.label, s.created_at, s.updated_at
            FROM profiles p LEFT JOIN sessions s ON s.profile = p.name
            WHERE p.name = $1
            ORDER BY s.created_seq
            """
        case .listProfiles:
            """
            SELECT name, created_at, last_event_id FROM profiles
            WHERE \(dialect.byteOrder("name")) > $1 ORDER BY \(dialect.byteOrder("name")) LIMIT $2
            """
        case .eventLogBounds:
            "SELECT (SELECT last_event_id FROM profiles WHERE name = $1), (SELECT min(id) FROM events WHERE profile = $1)"
        case .eventsAfter:
            "SELECT id, type, data, created_at FROM events WHERE profile = $1 AND id > $2 ORDER BY id LIMIT $3"
        case .eventsAfterWithin:
            // Sizes and offsets precede `data`: entries beyond the bound are never read whole.
            """
            SELECT e.id, e.type, e.data, e.created_at
            FROM events e, (SELECT f.id, f.log_offset FROM events f WHERE f.profile = $1 AND f.id > $2 ORDER BY f.id LIMIT 1) AS first
            WHERE e.profile = $1 AND e.id >= first.id AND (e.id = first.id OR e.log_offset + e.log_size <= first.log_offset + $4)
            ORDER BY e.id LIMIT $3
            """
        case .trimEventLog:
            // The first event to keep: the oldest that starts within the newest $2 bytes (found
            // from the oldest up, so a write that pushes one event out reads two rows), else the
            // newest alone. Offsets and sizes precede `data` in each row: no large event is read.
            // No RETURNING: on SQLite it tripled the statement's cost (5.3 µs against 1.7), on every write.
            """
            DELETE FROM events WHERE profile = $1 AND id < coalesce(
                (SELECT k.id FROM events k
                 WHERE k.profile = $1 AND k.log_offset >= (SELECT n.log_offset + n.log_size - $2 FROM events n
                                                           WHERE n.profile = $1 ORDER BY n.id DESC LIMIT 1)
                 ORDER BY k.id LIMIT 1),
                (SELECT max(id) FROM events WHERE profile = $1))
            """
        case .renumberEventLog:
            """
            UPDATE events SET log_offset = o.start
            FROM (SELECT profile, id, coalesce(sum(log_size) OVER (PARTITION BY profile ORDER BY id
                                                                  ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS start
                  FROM events) AS o
            WHERE events.profile = o.profile AND events.id = o.id
            """
        case .historyBefore:
            // Through the index on (profile, subject, id), which leaves the counter's events out
            // (`type <> 'counter'` names the index's condition): a page reads its own entries.
            historyPage(of: "subject = $2 AND type <> 'counter'")
        case .counterHistoryBefore:
            // The counter's events, through the primary key: an index entry for them would cost
            // every increment a page more in the write-ahead log (measured: 4.4 pages a commit
            // without it, 5.4 with it), and a profile's log holds mostly counter events where
            // the counter is busy. `$2` is unused, so that both forms take the same parameters.
            historyPage(of: "type = 'counter' AND CAST($2 AS TEXT) IS NOT NULL")
        case .insertToken:
            "INSERT INTO tokens (id, hash, profile, label, created_at) VALUES ($1, $2, $3, $4, $5)"
        case .listTokens:
            "SELECT id, hash, profile, label, created_at FROM tokens ORDER BY created_at, id"
        case .token:
            "SELECT id, hash, profile, label, created_at FROM tokens WHERE id = $1"
        case .deleteToken:
            dialect.write("DELETE FROM tokens WHERE id = $1", returning: "1", from: nil, where: "TRUE")
        case .insertSecretIfAbsent:
            "INSERT INTO secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING"
        case .secret:
            "SELECT value FROM secrets WHERE name = $1"
        case .ping:
            "SELECT 1"
        case .claimIdempotencyKey:
            // The claim is written with no answer (status 0); the same transaction records it.
            // Each key takes the next number of its profile, and of its token, so the caps below
            // find the keys beyond them through an index (two writes of one profile racing on
            // PostgreSQL may take one number twice: the cap is then off by one for a while).
            dialect.write("""
                INSERT INTO idempotency_keys (profile, key, fingerprint, created_at, status, headers, body, token, seq, token_seq)
                VALUES ($1, $2, $3, \(dialect.now), 0, '[]', '', $5,
                        (SELECT coalesce(max(seq), 0) + 1 FROM idempotency_keys WHERE profile = $1),
                        CASE WHEN CAST($5 AS TEXT) IS NULL THEN 0
                             ELSE (SELECT coalesce(max(token_seq), 0) + 1 FROM idempotency_keys WHERE token = CAST($5 AS TEXT)) END)
                ON CONFLICT (profile, key) DO UPDATE SET fingerprint = excluded.fingerprint, created_at = excluded.created_at,
                    status = 0, headers = '[]', body = '', token = excluded.token, seq = excluded.seq, token_seq = excluded.token_seq
                WHERE idempotency_keys.created_at < excluded.created_at - $4
                """, returning: "1", from: nil, where: "TRUE")
        case .idempotentAnswer:
            "SELECT fingerprint, status, headers, body FROM idempotency_keys WHERE profile = $1 AND key = $2"
        case .recordIdempotentAnswer:
            "UPDATE idempotency_keys SET status = $3, headers = $4, body = $5 WHERE profile = $1 AND key = $2"
        case .pruneIdempotencyKeys:
            """
            DELETE FROM idempotency_keys WHERE (profile, key) IN
                (SELECT profile, key FROM idempotency_keys WHERE created_at < \(dialect.now) - $1 ORDER BY created_at LIMIT $2)
            RETURNING 1
            """
        case .trimIdempotencyKeys:
            // Run after each claim: by number, through the index, whatever the profile holds
            // (ordering its keys by time cost 4.7 ms a write at 4,096 keys: 220 keyed writes a second).
            """
            DELETE FROM idempotency_keys WHERE profile = $1
              AND seq <= (SELECT max(seq) FROM idempotency_keys WHERE profile = $1) - $2
            """
        case .trimIdempotencyKeysOfToken:
            // Run after each claim, like the trim per profile, but it reaches other profiles'
            // rows, which their own writes may hold: on PostgreSQL those are skipped, never waited
            // for (a wait on another profile's row, from a group commit that takes profile locks
            // in byte order, could close a cycle), so a busy moment may keep a few more than the
            // cap until the token's next keyed write.
            """
            DELETE FROM idempotency_keys WHERE (profile, key) IN
                (SELECT profile, key FROM idempotency_keys
                 WHERE token = $1 AND token_seq <= (SELECT max(token_seq) FROM idempotency_keys WHERE token = $1) - $2
                 ORDER BY token_seq LIMIT 16\(dialect.forUpdateSkipLocked))
            """
        case .idempotencyKeysKept:
            // Each an index lookup (one min or max per subquery: together in one, SQLite scans).
            """
            SELECT (SELECT created_at FROM idempotency_keys WHERE profile = $1 ORDER BY seq LIMIT 1),
                   (SELECT max(seq) FROM idempotency_keys WHERE profile = $1) - (SELECT min(seq) FROM idempotency_keys WHERE profile = $1) + 1,
                   \(dialect.now)
            """
        case .profileUsage:
            "SELECT " + usageSum(in: dialect, profile: "$1")
        case .profileStorage:
            "SELECT \(usageSum(in: dialect, profile: "$1")), \(eventLogBytes(profile: "$1"))"
        case .profileUsages:
            """
            SELECT name, data + log, log FROM
                (SELECT name, \(usageSum(in: dialect, profile: "profiles.name")) AS data, \(eventLogBytes(profile: "profiles.name")) AS log
                 FROM profiles) AS u
            ORDER BY data + log DESC, \(dialect.byteOrder("name"))
            """
        case .idleSessions:
            "SELECT profile, id FROM sessions WHERE updated_at < \(dialect.now) - $1 ORDER BY updated_at LIMIT $2"
        case .idleSessionForUpdate:
            "SELECT version FROM sessions WHERE profile = $1 AND id = $2 AND updated_at < \(dialect.now) - $3" + dialect.forUpdate
        case .exportProfiles, .exportPreferences, .exportSessions, .exportSecrets, .contentCounts, .marker, .setMarker, .deleteMarker,
             .clearEvents, .clearSessions, .clearDefaults, .clearPreferences, .clearProfiles, .resetDefaultProfile, .clearTokens,
             .clearSecrets, .importProfiles, .importPreferences, .importDefaults, .importSessions, .importEvents, .importTokens,
             .importSecrets:
            transferSQL(in: dialect)
        }
    }
}

extension StoreStatement {
    /// A page of one history (``historyBefore``'s parameters), of the events `condition`
    /// chooses. The sizes come first (they precede `data` in each row); an entry past the page's
    /// bytes answers no data, so no large event beyond the bound is read whole.
    fileprivate func historyPage(of condition: String) -> String {
        """
        SELECT k.id, e.type, CASE WHEN k.newer = 0 OR k.newer + k.log_size <= $5 THEN e.data END, e.created_at
        FROM (SELECT id, log_size,
                     coalesce(sum(log_size) OVER (ORDER BY id DESC ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS newer
              FROM events WHERE profile = $1 AND \(condition) AND id < $3 ORDER BY id DESC LIMIT $4) AS k
        JOIN events e ON e.profile = $1 AND e.id = k.id
        ORDER BY k.id DESC
        """
    }

    /// The bytes of a profile's event log, as SQL: from the start of its oldest event to the
    /// end of its newest (two lookups by primary key; 0 without events).
    fileprivate func eventLogBytes(profile: String) -> String {
        """
        (coalesce((SELECT e.log_offset + e.log_size FROM events e WHERE e.profile = \(profile) ORDER BY e.id DESC LIMIT 1), 0)
         - coalesce((SELECT e.log_offset FROM events e WHERE e.profile = \(profile) ORDER BY e.id LIMIT 1), 0))
        """
    }

    /// The bytes a profile holds, as SQL (``QuotaSteps``): keys and values, registered defaults,
    /// sessions' states, idempotency records. Each part reads only the profile's own rows (each
    /// table's primary key starts with the profile).
    fileprivate func usageSum<Dialect: SQLDialect>(in dialect: Dialect.Type, profile: String) -> String {
        func sum(_ table: String, _ columns: [String]) -> String {
            let lengths = columns.map { "COALESCE(\(dialect.byteLength($0)), 0)" }.joined(separator: " + ")
            return "(SELECT COALESCE(SUM(\(lengths)), 0) FROM \(table) WHERE \(table).profile = \(profile))"
        }
        return [
            sum("preferences", ["key", "value", "author"]),
            sum("registered_defaults", ["key", "value"]),
            sum("sessions", ["id", "state"]),
            sum("idempotency_keys", ["key", "fingerprint", "headers", "body"]),
        ].joined(separator: " + ")
    }
}

