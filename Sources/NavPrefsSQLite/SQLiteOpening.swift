import Foundation
public import NavPrefsStore

/// How a store opens its file under a ``StoreAccess``, decided before any connection can change
/// it: which locks it takes, whether it may migrate, and whether what the file holds is usable.
///
/// - The service (and an import) claims the file for its whole life (``DatabaseFileLock``).
/// - A command that writes beside a service (tokens) migrates only while it can take that lock
///   for a moment, that is while no service runs; beside a running service the schema must be
///   this build's already.
/// - A command that reads never creates, migrates or claims: a missing file is an error that
///   names the path, not a new empty database.
struct SQLiteOpening {
    /// Held for the store's life.
    let claim: DatabaseFileLock?
    /// Held while the writer opens (and migrates); released once the store has started.
    let setupLock: DatabaseFileLock?
    /// Whether the writer brings an older schema to this build's.
    let migrates: Bool

    init(path: String, access: StoreAccess) throws(StoreError) {
        let exists = FileManager.default.fileExists(atPath: path)
        guard exists || access.mayCreate else { throw .unavailable(reason: "no database at \(path) (nothing was created)") }
        let claim = access.exclusive ? try DatabaseFileLock(path: path, create: access.mayCreate) : nil
        let setupLock: DatabaseFileLock?
        do throws(StoreError) {
            setupLock = !access.exclusive && access.writes && access.mayMigrate
                ? try DatabaseFileLock.attempt(path: path, create: access.mayCreate) : nil
        } catch {
            claim?.release()
            throw error
        }
        let migrates = access.mayMigrate && (claim != nil || setupLock != nil)
        if exists {
            var effective = access
            effective.mayMigrate = migrates
            do throws(StoreError) {
                if let refusal = try SQLiteStore.probeFile(path).refusal(for: effective, database: "sqlite:\(path)") {
                    throw StoreError.unavailable(reason: refusal)
                }
            } catch {
                claim?.release()
                setupLock?.release()
                throw error
            }
        }
        self.claim = claim
        self.setupLock = setupLock
        self.migrates = migrates
    }
}

extension SQLiteStore {
    /// What the database at `path` is (`navprefs check`), read with a read-only connection that
    /// neither creates nor changes anything, and whether a service holds the file now.
    /// - Throws: ``StoreError/unavailable(reason:)`` when there is no file at `path` or it cannot be read.
    public static func probe(path: String) throws(StoreError) -> StoreProbe {
        guard FileManager.default.fileExists(atPath: path) else { throw .unavailable(reason: "no database at \(path)") }
        let claimed = DatabaseFileLock.isHeld(path: path)
        // A running service writes its log as it goes: its -wal and -shm are read only when none does.
        var probe = try probeFile(path, inspectsLog: !claimed)
        probe.claimedByAnotherProcess = claimed
        return probe
    }

    /// The process that serves the database at `path` now (`PID 4242, listening on port 8080`),
    /// for messages about a file a service holds; `nil` when none does or `/proc` cannot say.
    public static func holder(path: String) -> String? {
        DatabaseFileLock.holder(of: path)
    }

    /// What the file is; damaged files (``SQLiteFileInspection``, SQLite's `quick_check`) are
    /// found before any connection would recover (and so hide) a damaged log.
    static func probeFile(_ path: String, inspectsLog: Bool = true) throws(StoreError) -> StoreProbe {
        if let damage = SQLiteFileInspection.damage(at: path, inspectsLog: inspectsLog) {
            return StoreProbe(isNavPrefs: true, schemaVersion: 0, latestSchemaVersion: SQLiteSchema.latestVersion, unfinishedImport: nil,
                              claimedByAnotherProcess: false, damage: damage)
        }
        do {
            let connection = try SQLiteConnection(path: path, readOnly: true, create: false)
            try connection.execute("PRAGMA busy_timeout = 5000")
            return try SQLiteSchema.probe(connection)
        } catch {
            throw error.storeError
        }
    }
}
