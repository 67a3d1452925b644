import Foundation
import NavPrefsSQLite
import NavPrefsStore

/// `navprefs backup`: a consistent copy of a SQLite store, made beside the running service
/// (see ``SQLiteBackup``); PostgreSQL has pg_dump for that (docs/operations.md).
enum BackupCommand {
    static let usage = """
        Usage: navprefs backup --output FILE [--database sqlite:PATH]
        Copies the SQLite database to FILE as one transaction sees it (every write the service
        acknowledged before the backup began, none in part), while the service keeps serving;
        FILE must not exist. Restore: stop navprefs, remove PATH-wal and PATH-shm, put FILE in
        PATH's place (or point --database at it), start navprefs. For PostgreSQL use pg_dump.
        Exit status: 0 copied, 1 failed, 2 usage (or a PostgreSQL database), 3 no database,
        4 not a NavPrefs database or damaged, 5 FILE exists.

        """

    static func run(_ arguments: ArraySlice<String>, environment: [String: String]) async -> Int32 {
        do {
            let parsed = try CommandArguments(arguments, valued: ["output"])
            if parsed.wantsHelp {
                print(usage, terminator: "")
                return 0
            }
            let configuration = try parsed.configuration(environment: environment)
            guard let output = parsed.values["output"], !output.isEmpty else { throw CommandFailure(.usage, "name the copy: --output FILE") }
            guard case .sqlite(let path) = configuration.database else {
                throw CommandFailure(.usage, "backup copies SQLite files; for \(configuration.database) use pg_dump -Fc (docs/operations.md, Backup and restore)")
            }
            guard FileManager.default.fileExists(atPath: path) else {
                throw CommandFailure(.databaseUnavailable, "no database at \(configuration.database) (nothing was created; check the path)")
            }
            guard !FileManager.default.fileExists(atPath: output) else {
                throw CommandFailure(.refused, "\(output) exists; remove it or choose another name")
            }
            let started = ContinuousClock.now
            let report: SQLiteBackup.Report
            do {
                report = try await runOffThePool { try SQLiteBackup.copy(from: path, to: output) }
            } catch let error as StoreError {
                let reason = CommandStore.reason(error)
                let unusable = reason.hasSuffix("is not a NavPrefs database") || reason.contains(" is damaged: ")
                throw CommandFailure(unusable ? .databaseUnusable : .failure, reason)
            }
            CommandOutput.say("backup", "\(configuration.database) copied to \(output): \(report.profiles) profiles, \(report.events) events, "
                + "schema \(report.schemaVersion), \(report.bytes) bytes, checked (\(String(format: "%.1f", (ContinuousClock.now - started).inSeconds)) s)")
            return ExitStatus.success.rawValue
        } catch let failure as CommandFailure {
            return CommandOutput.fail("backup", failure)
        } catch {
            return CommandOutput.fail("backup", CommandFailure(.failure, "\(error)"))
        }
    }
}
