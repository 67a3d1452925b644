import Foundation
import NavPrefsCore
import NavPrefsStore

/// A fresh database file in its own temporary directory, removed afterwards.
struct TemporaryDatabase: Sendable {
    let directory: URL
    var path: String { directory.appendingPathComponent("navprefs.sqlite").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("navprefs-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

/// Opens a SQLite store on a fresh file for `body`, closes it and removes the file after.
@discardableResult
func withSQLiteStore<T>(
    durability: Durability = .normal,
    _ body: (SQLiteStore, TemporaryDatabase) async throws -> T
) async throws -> T {
    let database = try TemporaryDatabase()
    defer { database.remove() }
    let store = try SQLiteStore(.init(path: database.path, durability: durability))
    do {
        let result = try await body(store, database)
        await store.close()
        return result
    } catch {
        await store.close()
        throw error
    }
}

func profile(_ name: String) -> ProfileName {
    // Test names are literals known to be valid.
    (try? ProfileName(name)) ?? .default
}

func step(_ amount: Int64) -> CounterStep {
    (try? CounterStep(amount)) ?? .one
}
