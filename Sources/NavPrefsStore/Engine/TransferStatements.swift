/// The SQL of the statements that move a store (export, import, the unfinished-import marker),
/// written once for both dialects like the rest (``StoreStatement/sql(in:)``). Two hooks carry
/// what differs: ``SQLDialect/byteOrder(_:)``, because PostgreSQL sorts text by the database's
/// collation and an export must list profiles in one order whatever the store, and
/// ``SQLDialect/rows(_:alias:columns:)``, a batch of rows as one parameter.
extension StoreStatement {
    func transferSQL<Dialect: SQLDialect>(in dialect: Dialect.Type) -> String {
        switch self {
        case .exportProfiles:
            """
            SELECT name, created_at, last_event_id, defaults_version, preferences_version, defaults_changed_at, defaults_author FROM profiles
            WHERE \(dialect.byteOrder("name")) > $1 ORDER BY \(dialect.byteOrder("name")) LIMIT $2
            """
        case .exportPreferences:
            "SELECT key, value, version, changed_at, author FROM preferences WHERE profile = $1 ORDER BY \(dialect.byteOrder("key"))"
        case .exportSessions:
            "SELECT id, state, version, created_seq, created_at, label, updated_at FROM sessions WHERE profile = $1 ORDER BY created_seq, \(dialect.byteOrder("id"))"
        case .exportSecrets:
            "SELECT name, value FROM secrets ORDER BY \(dialect.byteOrder("name"))"
        case .contentCounts:
            """
            SELECT (SELECT count(*) FROM profiles WHERE name <> 'default' OR last_event_id <> 0),
                   (SELECT count(*) FROM tokens), (SELECT count(*) FROM secrets)
            """
        case .marker:
            "SELECT value FROM store_markers WHERE name = $1"
        case .setMarker:
            "INSERT INTO store_markers (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value"
        case .deleteMarker:
            "DELETE FROM store_markers WHERE name = $1"
        case .clearEvents: "DELETE FROM events"
        case .clearSessions: "DELETE FROM sessions"
        case .clearDefaults: "DELETE FROM registered_defaults"
        case .clearPreferences: "DELETE FROM preferences"
        case .clearProfiles: "DELETE FROM profiles WHERE name <> 'default'"
        case .resetDefaultProfile:
            """
            UPDATE profiles SET last_event_id = 0, defaults_version = 0, preferences_version = 0, defaults_changed_at = NULL,
                defaults_author = NULL WHERE name = 'default'
            """
        case .clearTokens: "DELETE FROM tokens"
        case .clearSecrets: "DELETE FROM secrets"
        case .importProfiles:
            // `WHERE true` keeps SQLite from reading ON CONFLICT as part of the join.
            """
            INSERT INTO profiles (name, created_at, last_event_id, defaults_version, preferences_version, defaults_changed_at, defaults_author)
            SELECT r.name, r.created_at, r.last_event_id, r.defaults_version, r.preferences_version, r.defaults_changed_at, r.defaults_author
            FROM \(dialect.rows(1, alias: "r", columns: [("name", .text), ("created_at", .integer), ("last_event_id", .integer),
                                                          ("defaults_version", .integer), ("preferences_version", .integer),
                                                          ("defaults_changed_at", .integer), ("defaults_author", .text)]))
            WHERE true
            ON CONFLICT (name) DO UPDATE SET created_at = excluded.created_at, last_event_id = excluded.last_event_id,
                defaults_version = excluded.defaults_version, preferences_version = excluded.preferences_version,
                defaults_changed_at = excluded.defaults_changed_at, defaults_author = excluded.defaults_author
            """
        case .importPreferences:
            """
            INSERT INTO preferences (profile, key, value, version, changed_at, author)
            SELECT r.profile, r.key, r.value, r.version, r.changed_at, r.author
            FROM \(dialect.rows(1, alias: "r", columns: [("profile", .text), ("key", .text), ("value", .text), ("version", .integer),
                                                          ("changed_at", .integer), ("author", .text)]))
            """
        case .importDefaults:
            """
            INSERT INTO registered_defaults (profile, key, value, position)
            SELECT r.profile, r.key, r.value, r.position
            FROM \(dialect.rows(1, alias: "r", columns: [("profile", .text), ("key", .text), ("value", .text), ("position", .integer)]))
            """
        case .importSessions:
            """
            INSERT INTO sessions (profile, id, state, version, depth, root, top, created_seq, created_at, label, updated_at)
            SELECT r.profile, r.id, r.state, r.version, r.depth, r.root, r.top, r.created_seq, r.created_at, r.label, r.updated_at
            FROM \(dialect.rows(1, alias: "r", columns: [("profile", .text), ("id", .text), ("state", .text), ("version", .integer),
                                                          ("depth", .integer), ("root", .text), ("top", .text),
                                                          ("created_seq", .integer), ("created_at", .integer), ("label", .text),
                                                          ("updated_at", .integer)]))
            """
        case .importEvents:
            """
            INSERT INTO events (profile, id, type, data, created_at, log_offset, log_size, subject)
            SELECT r.profile, r.id, r.type, r.data, r.created_at, 0, \(dialect.byteLength("r.data")), r.subject
            FROM \(dialect.rows(1, alias: "r", columns: [("profile", .text), ("id", .integer), ("type", .text), ("data", .text),
                                                          ("created_at", .integer), ("subject", .text)]))
            """
        case .importTokens:
            """
            INSERT INTO tokens (id, hash, profile, label, created_at)
            SELECT r.id, r.hash, r.profile, r.label, r.created_at
            FROM \(dialect.rows(1, alias: "r", columns: [("id", .text), ("hash", .text), ("profile", .text), ("label", .text),
                                                          ("created_at", .integer)]))
            """
        case .importSecrets:
            """
            INSERT INTO secrets (name, value)
            SELECT r.name, r.value FROM \(dialect.rows(1, alias: "r", columns: [("name", .text), ("value", .text)]))
            """
        default:
            // SQLDialect.swift sends only the statements above here; should another arrive, it
            // fails where it is prepared, naming itself, rather than run some other SQL.
            "SELECT 'no SQL for \(self)' FROM navprefs_statement_without_sql"
        }
    }
}
