import Foundation
import NavPrefsCore
@testable import NavPrefsStore
import Testing

/// Access tokens and shared secrets through the ``Store`` protocol, against every store.
@Suite("Store contract: access tokens and shared secrets")
struct TokenStoreTests {
    static func record(_ id: String, profile: String?, at time: Int64) throws -> TokenRecord {
        TokenRecord(id: id, hash: String(repeating: "a", count: 64), profile: try profile.map(ProfileName.init), label: "l-\(id)", createdAt: time)
    }

    @Test("create, find by id, list oldest first, ids unique, revoke once", arguments: StoreKind.testCases)
    func tokens(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            #expect(try await store.tokens().isEmpty)
            let admin = try Self.record("aaaaaaaaaaaa", profile: nil, at: 2)
            let ana = try Self.record("bbbbbbbbbbbb", profile: "ana", at: 1)
            try await store.createToken(admin)
            try await store.createToken(ana)
            #expect(try await store.tokens() == [ana, admin])
            #expect(try await store.token(id: "aaaaaaaaaaaa") == admin)
            #expect(try await store.token(id: "cccccccccccc") == nil)
            await #expect(throws: StoreError.self, "ids are unique") { try await store.createToken(admin) }
            #expect(try await store.revokeToken(id: "bbbbbbbbbbbb"))
            #expect(try await !store.revokeToken(id: "bbbbbbbbbbbb"))
            #expect(try await store.tokens() == [admin])
        }
    }

    @Test("a secret is stored by the first writer; later candidates get the stored value", arguments: StoreKind.testCases)
    func secrets(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ async throws in
            let first = try await store.secret(named: "k", candidate: "first")
            let second = try await store.secret(named: "k", candidate: "second")
            let other = try await store.secret(named: "other", candidate: "x")
            #expect([first, second, other] == ["first", "first", "x"])
        }
    }
}
