import NavPrefsCore

/// Access tokens and shared secrets: plain rows, no events.
extension PostgresStore {
    public func createToken(_ token: TokenRecord) async throws(StoreError) {
        try await write { connection in
            try connection.query(
                "INSERT INTO tokens (id, hash, profile, label, created_at) VALUES ($1, $2, $3, $4, $5)",
                .text(token.id), .text(token.hash), token.profile.map { .text($0.rawValue) } ?? .null,
                .text(token.label), .integer(token.createdAt))
            return Written((), event: nil)
        }
    }

    public func tokens() async throws(StoreError) -> [TokenRecord] {
        try await read { connection in
            try connection.query("SELECT id, hash, profile, label, created_at FROM tokens ORDER BY created_at, id").map(Self.token)
        }
    }

    public func token(id: String) async throws(StoreError) -> TokenRecord? {
        try await read { connection in
            try connection.queryFirst("SELECT id, hash, profile, label, created_at FROM tokens WHERE id = $1", .text(id)).map(Self.token)
        }
    }

    public func revokeToken(id: String) async throws(StoreError) -> Bool {
        try await write { connection in
            Written(try connection.queryFirst("DELETE FROM tokens WHERE id = $1 RETURNING 1", .text(id)) != nil, event: nil)
        }
    }

    public func secret(named name: String, candidate: String) async throws(StoreError) -> String {
        try await write { connection in
            try connection.query("INSERT INTO secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
                                 .text(name), .text(candidate))
            return Written(try connection.queryFirst("SELECT value FROM secrets WHERE name = $1", .text(name))?.text(0) ?? candidate,
                           event: nil)
        }
    }

    private static func token(_ row: PostgresRow) throws -> TokenRecord {
        TokenRecord(id: try row.text(0), hash: try row.text(1), profile: row.isNull(2) ? nil : try? ProfileName(try row.text(2)),
                    label: try row.text(3), createdAt: try row.int64(4))
    }
}
