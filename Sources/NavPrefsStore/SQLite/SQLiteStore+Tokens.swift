import NavPrefsCore

/// Access tokens and shared secrets: plain rows, written by the writer like everything else
/// (so a token created through the admin API is committed before it is shown).
extension SQLiteStore {
    public func createToken(_ token: TokenRecord) async throws(StoreError) {
        try await writer.write { context in
            try context.connection.run(
                "INSERT INTO tokens (id, hash, profile, label, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                .text(token.id), .text(token.hash), token.profile.map { .text($0.rawValue) } ?? .null,
                .text(token.label), .integer(token.createdAt))
            return Committed(value: ())
        }
    }

    public func tokens() async throws(StoreError) -> [TokenRecord] {
        try await readers.read { connection in
            try connection.query("SELECT id, hash, profile, label, created_at FROM tokens ORDER BY created_at, id", row: Self.token)
        }
    }

    public func token(id: String) async throws(StoreError) -> TokenRecord? {
        try await readers.read { connection in
            try connection.queryFirst("SELECT id, hash, profile, label, created_at FROM tokens WHERE id = ?1", .text(id), row: Self.token)
        }
    }

    public func revokeToken(id: String) async throws(StoreError) -> Bool {
        try await writer.write { context in
            let removed = try context.connection.queryFirst("DELETE FROM tokens WHERE id = ?1 RETURNING 1", .text(id)) { _ in true }
            return Committed(value: removed ?? false)
        }
    }

    public func secret(named name: String, candidate: String) async throws(StoreError) -> String {
        try await writer.write { context in
            try context.connection.run("INSERT OR IGNORE INTO secrets (name, value) VALUES (?1, ?2)", .text(name), .text(candidate))
            let value = try context.connection.queryFirst("SELECT value FROM secrets WHERE name = ?1", .text(name)) { $0.text(0) }
            return Committed(value: value ?? candidate)
        }
    }

    private static func token(_ row: SQLiteRow) -> TokenRecord {
        TokenRecord(id: row.text(0), hash: row.text(1), profile: row.isNull(2) ? nil : try? ProfileName(row.text(2)),
                    label: row.text(3), createdAt: row.int64(4))
    }
}
