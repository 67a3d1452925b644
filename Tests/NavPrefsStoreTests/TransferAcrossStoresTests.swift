import Foundation
import HTTPTestClient
import NavPrefsCore
@testable import NavPrefsStore
import Testing
@testable import NavPrefsPostgres
@testable import NavPrefsSQLite

/// A move between the two stores is exact: SQLite → PostgreSQL → SQLite gives the first
/// export again byte for byte, also when PostgreSQL's collation orders text otherwise.
@Suite("Export and import across stores",
       .enabled(if: TestEnvironment.postgresURL != nil, "set NAVPREFS_TEST_POSTGRES_URL (scripts/lib/postgres.sh start)"))
struct TransferAcrossStoresTests {
    @Test("SQLite → PostgreSQL (ICU en-US collation) → SQLite: the exports are byte-identical but for the header's store")
    func sqliteToPostgresAndBack() async throws {
        let sqliteHeader = TransferHeader(navprefsVersion: "test", store: "sqlite", includesSecrets: true)
        let postgresHeader = TransferHeader(navprefsVersion: "test", store: "postgresql", includesSecrets: true)
        let first = try await withStore(.sqlite) { source, _ in
            try await TransferFixture.populate(source)
            return try await TransferFixture.export(source, header: sqliteHeader)
        }
        let name = "navprefs_icu_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await onOwnThread {
            try TestDatabase.admin { try $0.execute("CREATE DATABASE \(name) LOCALE_PROVIDER icu ICU_LOCALE 'en-US' TEMPLATE template0") }
        }
        defer { try? TestDatabase.admin { try $0.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") } }
        let base = try #require(TestEnvironment.postgresURL)
        var components = try #require(URLComponents(string: base))
        components.path = "/" + name
        let url = try #require(components.string)

        var options = PostgresStore.Options(url: url, poolSize: 2)
        options.access = .importer
        let importing = options
        let importer = try await onOwnThread { try PostgresStore.started(importing) }
        do {
            try await TransferFixture.import(first, into: importer, maxBatchRows: 4)
        } catch {
            await importer.close()
            throw error
        }
        await importer.close()
        let postgres = try await onOwnThread { try PostgresStore.started(.init(url: url, poolSize: 2)) }
        let second = try await TransferFixture.export(postgres, header: postgresHeader)
        await postgres.close()
        #expect(second.first == postgresHeader.lineForTest)
        #expect(Array(second.dropFirst()) == Array(first.dropFirst()))

        let third = try await withStore(.sqlite, StoreSettings(access: .importer)) { target, database in
            try await TransferFixture.import(second, into: target)
            await target.close()
            let service = try database.open()
            let lines = try await TransferFixture.export(service, header: sqliteHeader)
            await service.close()
            return lines
        }
        #expect(third == first)
    }
}

extension TransferHeader {
    var lineForTest: String { TransferRecord.header(self).line }
}
