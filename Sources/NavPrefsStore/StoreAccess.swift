/// What a process may do to the database it opens. The service owns its database; commands
/// (`navprefs tokens`, `export`, `check`, `backup`) work beside it, and a command that only reads
/// must never create or change a database, so that a typo in a path is an error instead of a new,
/// empty database that looks fine.
///
/// Each store reads these in its own terms: for SQLite, `exclusive` is the `flock` that keeps a
/// second service off the file; for PostgreSQL, where several instances share one database,
/// `background` is the `LISTEN` connection and the pruning thread, and `writes == false` opens
/// connections whose transactions are read-only.
public struct StoreAccess: Sendable, Equatable {
    /// Claims the database for this process alone (SQLite: an exclusive `flock` for the store's
    /// life). Only a store that claims its database may write profile data: the SQLite service
    /// keeps what it reads in memory and must see every such write.
    public var exclusive: Bool
    /// Runs the service's background work: pruning the event log, and on PostgreSQL listening
    /// for other instances' events.
    public var background: Bool
    /// May create the database (a SQLite file) or its tables when there are none yet.
    public var mayCreate: Bool
    /// May bring an older schema to this build's. Done only when no other process serves the
    /// database (SQLite: the store could take the claim), never beside a running service.
    public var mayMigrate: Bool
    /// Opens a writer at all; without it every write fails and PostgreSQL transactions are read-only.
    public var writes: Bool
    /// Opens a database that an import began and did not finish; the service refuses to, so
    /// that half a store is never served (see `TransactionalStore.beginImport`).
    public var acceptsUnfinishedImport: Bool

    public init(exclusive: Bool, background: Bool, mayCreate: Bool, mayMigrate: Bool, writes: Bool, acceptsUnfinishedImport: Bool) {
        self.exclusive = exclusive
        self.background = background
        self.mayCreate = mayCreate
        self.mayMigrate = mayMigrate
        self.writes = writes
        self.acceptsUnfinishedImport = acceptsUnfinishedImport
    }

    /// The service: creates and migrates its database, claims it, prunes, listens.
    public static let service = StoreAccess(exclusive: true, background: true, mayCreate: true, mayMigrate: true, writes: true,
                                            acceptsUnfinishedImport: false)

    /// `navprefs import`: like the service (no other process may use the database meanwhile),
    /// without background work (pruning would delete old events while they arrive), and it may
    /// open a database an earlier import left unfinished, to replace it.
    public static let importer = StoreAccess(exclusive: true, background: false, mayCreate: true, mayMigrate: true, writes: true,
                                             acceptsUnfinishedImport: true)

    /// Commands that only read (`tokens list`, `export`): the database must exist with this
    /// build's schema; nothing is created, migrated or written, and a running service is no obstacle.
    public static func reader(acceptsUnfinishedImport: Bool) -> StoreAccess {
        StoreAccess(exclusive: false, background: false, mayCreate: false, mayMigrate: false, writes: false,
                    acceptsUnfinishedImport: acceptsUnfinishedImport)
    }

    /// `tokens create` and `tokens revoke` beside a running service: rows of tokens only (the
    /// service finds them within its token cache's lifetime), never profile data. `create`:
    /// the first token may create the database (before the service ever ran).
    public static func tokenWriter(create: Bool) -> StoreAccess {
        StoreAccess(exclusive: false, background: false, mayCreate: create, mayMigrate: true, writes: true, acceptsUnfinishedImport: true)
    }
}

/// What a database is, read without changing it (`navprefs check`, and the commands, which
/// explain a database they cannot use before they try).
public struct StoreProbe: Sendable, Equatable {
    /// The database holds NavPrefs' schema, or nothing at all (an empty file or database, which
    /// the service would make its own); `false` for another program's database.
    public var isNavPrefs: Bool
    /// The schema version found (0: none yet).
    public var schemaVersion: Int
    /// The schema version this build writes.
    public var latestSchemaVersion: Int
    /// What an unfinished import recorded when it began (its source and time); `nil` when none.
    public var unfinishedImport: String?
    /// Whether another process claims the database now (SQLite: a running service holds its lock).
    public var claimedByAnotherProcess: Bool
    /// What is wrong with the database's files or pages (a lost or cut write-ahead log, pages
    /// SQLite's integrity check refuses, a file emptied), with what to do; `nil` when nothing was found.
    public var damage: String?

    public init(isNavPrefs: Bool, schemaVersion: Int, latestSchemaVersion: Int, unfinishedImport: String?, claimedByAnotherProcess: Bool,
                damage: String? = nil) {
        self.damage = damage
        self.isNavPrefs = isNavPrefs
        self.schemaVersion = schemaVersion
        self.latestSchemaVersion = latestSchemaVersion
        self.unfinishedImport = unfinishedImport
        self.claimedByAnotherProcess = claimedByAnotherProcess
    }

    /// Why a process with `access` cannot use this database; `nil` when it can.
    public func refusal(for access: StoreAccess, database: String) -> String? {
        if let damage {
            return "\(database) is damaged: \(damage). Nothing was changed. Restore it from a backup (docs/operations.md, "
                + "\"Backup and restore\": stop navprefs, move the damaged files aside, copy the newest backup in place), "
                + "or move the files aside to start an empty store"
        }
        guard isNavPrefs else { return "\(database) is not a NavPrefs database" }
        if schemaVersion > latestSchemaVersion {
            return "\(database) has schema version \(schemaVersion); this navprefs knows up to \(latestSchemaVersion): use a newer navprefs"
        }
        if schemaVersion < latestSchemaVersion {
            if schemaVersion == 0 && !access.mayCreate {
                return "\(database) holds no NavPrefs data yet (no schema): nothing to read"
            }
            if !access.mayMigrate || (!access.exclusive && claimedByAnotherProcess) {
                return "\(database) has schema version \(schemaVersion) and this navprefs needs \(latestSchemaVersion): "
                    + "start this version of navprefs on it once (it migrates at start), or use the navprefs that serves it"
            }
        }
        if let unfinishedImport, !access.acceptsUnfinishedImport {
            return "an import into \(database) did not finish (\(unfinishedImport)): it holds part of a store; "
                + "run `navprefs import --replace` again, or use another database"
        }
        return nil
    }
}
