import NavPrefsCore

/// Access tokens and shared secrets: plain rows, no events, no versions.
extension TransactionalStore {
    public func createToken(_ token: TokenRecord) async throws(StoreError) {
        try await write { transaction in
            try transaction.run(.insertToken, .text(token.id), .text(token.hash), token.profile.map { .text($0.rawValue) } ?? .null,
                                .text(token.label), .integer(token.createdAt))
            return WriteOutcome(())
        }
    }

    public func tokens() async throws(StoreError) -> [TokenRecord] {
        try await read(snapshot: false) { transaction in try transaction.rows(.listTokens).map(Self.token) }
    }

    public func token(id: String) async throws(StoreError) -> TokenRecord? {
        try await read(snapshot: false) { transaction in try transaction.firstRow(.token, .text(id)).map(Self.token) }
    }

    public func revokeToken(id: String) async throws(StoreError) -> Bool {
        try await write { transaction in WriteOutcome(try transaction.firstRow(.deleteToken, .text(id)) != nil) }
    }

    public func secret(named name: String, candidate: String) async throws(StoreError) -> String {
        try await write { transaction in
            try transaction.run(.insertSecretIfAbsent, .text(name), .text(candidate))
            return WriteOutcome(try transaction.firstRow(.secret, .text(name))?.text(0) ?? candidate)
        }
    }

    private static func token(_ row: StoreRow) throws -> TokenRecord {
        TokenRecord(id: try row.text(0), hash: try row.text(1), profile: row.optionalText(2).flatMap { try? ProfileName($0) },
                    label: try row.text(3), createdAt: try row.int64(4))
    }
}
