import Foundation
import HTTPTestClient
import NavPrefsCore
@testable import NavPrefsStore
import Synchronization
import Testing
@testable import NavPrefsPostgres
@testable import NavPrefsSQLite
import StoreTestSupport

/// What a command may do to a database (``StoreAccess``): a reader never creates or changes
/// one, token commands work beside a running service, and only the service writes profile data.
@Suite("Store access: the service and the commands beside it")
struct StoreAccessTests {
    static func sqlite(_ path: String, _ access: StoreAccess) -> SQLiteStore {
        var options = SQLiteStore.Options(path: path, durability: .normal)
        options.access = access
        options.readerCount = 1
        return SQLiteStore(options)
    }

    @Test("a reader of a path where no database is creates nothing and names the path")
    func readerCreatesNothing() throws {
        let database = try TestDatabase(.sqlite)
        defer { database.remove() }
        for access in [StoreAccess.reader(acceptsUnfinishedImport: true), .tokenWriter(create: false)] {
            #expect {
                try Self.sqlite(database.path, access).start()
            } throws: { error in
                "\(error)" == "storage unavailable: no database at \(database.path) (nothing was created)"
            }
            #expect(!FileManager.default.fileExists(atPath: database.path))
        }
        #expect(throws: StoreError.unavailable(reason: "no database at \(database.path)")) { try SQLiteStore.probe(path: database.path) }
        #expect(!FileManager.default.fileExists(atPath: database.path))
    }

    @Test("beside a running service: tokens are read and written, profile data is not, and nothing is claimed")
    func tokensBesideTheService() async throws {
        try await withSQLiteStore { service, database in
            _ = try await service.apply(.increment(.one), toCounterOf: profile("ana"), if: nil)
            #expect(try SQLiteStore.probe(path: database.path).claimedByAnotherProcess)

            let writer = Self.sqlite(database.path, .tokenWriter(create: false))
            try writer.start()
            let record = TokenRecord(id: "0123456789ab", hash: String(repeating: "c", count: 64), profile: nil, label: "cli", createdAt: 1)
            try await writer.createToken(record)
            #expect(try await service.token(id: record.id) == record, "the service reads what the command wrote")
            await #expect {
                try await writer.apply(.increment(.one), toCounterOf: profile("ana"), if: nil)
            } throws: { error in
                "\(error)".contains("profile data is written only by the process that serves")
            }
            #expect(try await writer.revokeToken(id: record.id))
            await writer.close()

            let reader = Self.sqlite(database.path, .reader(acceptsUnfinishedImport: false))
            try reader.start()
            #expect(try await reader.tokens().isEmpty)
            await #expect(throws: StoreError.unavailable(reason: "\(database.path) was opened for reading only")) {
                try await reader.createToken(record)
            }
            await reader.close()
            #expect(try await service.counter(of: profile("ana")).counter.value == 1)
            _ = try await service.apply(.increment(.one), toCounterOf: profile("ana"), if: nil)
        }
    }

    @Test("the first token may create the database: with no service, a token writer creates and migrates it")
    func firstTokenCreates() async throws {
        let database = try TestDatabase(.sqlite)
        defer { database.remove() }
        let writer = Self.sqlite(database.path, .tokenWriter(create: true))
        try writer.start()
        try await writer.createToken(TokenRecord(id: "0123456789ab", hash: String(repeating: "c", count: 64), profile: nil, label: "", createdAt: 1))
        await writer.close()
        let probe = try SQLiteStore.probe(path: database.path)
        #expect(probe == StoreProbe(isNavPrefs: true, schemaVersion: SQLiteSchema.latestVersion, latestSchemaVersion: SQLiteSchema.latestVersion,
                                    unfinishedImport: nil, claimedByAnotherProcess: false))
    }

    @Test("what a database is decides who may open it: another program's file, a newer schema, an older one beside a service")
    func probesAndRefusals() async throws {
        let database = try TestDatabase(.sqlite)
        defer { database.remove() }
        try Data("not a database, just text that is long enough to fill a header of a hundred bytes or more, surely".utf8)
            .write(to: URL(fileURLWithPath: database.path))
        #expect(try SQLiteStore.probe(path: database.path).isNavPrefs == false)
        #expect(throws: StoreError.unavailable(reason: "sqlite:\(database.path) is not a NavPrefs database")) {
            try Self.sqlite(database.path, .service).start()
        }
        try FileManager.default.removeItem(atPath: database.path)

        let creator = Self.sqlite(database.path, .service)
        try creator.start()
        await creator.close()
        try database.execute("PRAGMA user_version = 99")
        let newer = try SQLiteStore.probe(path: database.path)
        #expect(newer.schemaVersion == 99)
        #expect(newer.refusal(for: .service, database: "x") == "x has schema version 99; this navprefs knows up to \(SQLiteSchema.latestVersion): use a newer navprefs")

        try database.execute("PRAGMA user_version = 5")
        #expect(throws: StoreError.self) { try Self.sqlite(database.path, .reader(acceptsUnfinishedImport: true)).start() }
        let older = try SQLiteStore.probe(path: database.path)
        #expect(older.refusal(for: .tokenWriter(create: false), database: "x") == nil, "no service holds it: a token writer migrates")
        var beside = older
        beside.claimedByAnotherProcess = true
        #expect(beside.refusal(for: .tokenWriter(create: false), database: "x")?.contains("start this version of navprefs on it once") == true)
    }

    @Test("PostgreSQL: a reader of a database without NavPrefs' tables creates none; a reader's transactions are read-only",
          .enabled(if: TestEnvironment.postgresURL != nil, "set NAVPREFS_TEST_POSTGRES_URL"))
    func postgresReader() async throws {
        let database = try await onOwnThread { try TestDatabase(.postgres) }
        defer { database.remove() }
        var options = PostgresStore.Options(url: database.url, poolSize: 1)
        options.access = .reader(acceptsUnfinishedImport: true)
        let readerOptions = options
        #expect {
            try PostgresStore(readerOptions).start()
        } throws: { error in
            "\(error)".contains("the PostgreSQL database holds no NavPrefs data yet")
        }
        #expect(try PostgresStore.probe(url: database.url).schemaVersion == 0, "nothing was created")
        let service = try await onOwnThread { try PostgresStore.started(.init(url: database.url, poolSize: 1)) }
        await service.close()
        let reader = PostgresStore(readerOptions)
        try await onOwnThread { try reader.start() }
        #expect(try await reader.tokens().isEmpty)
        await #expect(throws: StoreError.self) { try await reader.createToken(TokenRecord(id: "0123456789ab", hash: "", profile: nil, label: "", createdAt: 1)) }
        await reader.close()
    }
}
