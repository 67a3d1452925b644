import Foundation
import NavPrefsStore

/// Opens the store a command works on, or says, with the right exit status, why it cannot: a
/// missing SQLite file (never created by a command that reads), an unreachable PostgreSQL, a
/// database this build cannot use. What the database is gets read first (``StoreProbe``), so the
/// message names the database and what to do rather than a bare SQL error.
enum CommandStore {
    /// The store `configuration` names, started with `access`. Close it when done.
    static func open(_ configuration: Configuration, access: StoreAccess) async throws(CommandFailure) -> any TransactionalStore {
        let database = configuration.database.description
        if case .sqlite(let path) = configuration.database, !access.mayCreate, !FileManager.default.fileExists(atPath: path) {
            throw CommandFailure(.databaseUnavailable, "no database at \(database) (nothing was created; check the path)")
        }
        let exists = if case .sqlite(let path) = configuration.database { FileManager.default.fileExists(atPath: path) } else { true }
        if exists {
            let probe: StoreProbe
            do {
                probe = try StoreChoice.probe(configuration)
            } catch {
                throw CommandFailure(.databaseUnavailable, "cannot reach \(database): \(reason(error))")
            }
            if access.exclusive && probe.claimedByAnotherProcess {
                let holder = StoreChoice.holder(of: configuration).map { " (\($0))" } ?? ""
                throw CommandFailure(.databaseUnusable, "\(database) is in use by a running navprefs\(holder); stop it first")
            }
            if let refusal = probe.refusal(for: access, database: database) { throw CommandFailure(.databaseUnusable, refusal) }
        }
        let store = StoreChoice.store(for: configuration, access: access).store
        do {
            try await runOffThePool { try store.start() }
        } catch let error as StoreError {
            if case .unavailable = error { throw CommandFailure(.databaseUnavailable, "cannot open \(database): \(reason(error))") }
            throw CommandFailure(.failure, "cannot open \(database): \(reason(error))")
        } catch {
            throw CommandFailure(.failure, "cannot open \(database): \(error)")
        }
        return store
    }

    /// A store error's reason without the "storage unavailable: " prefix its description has.
    static func reason(_ error: StoreError) -> String {
        switch error {
        case .unavailable(let reason), .corrupted(let reason), .internal(let reason): reason
        default: error.description
        }
    }
}
