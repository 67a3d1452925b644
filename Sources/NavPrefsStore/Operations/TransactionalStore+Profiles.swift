public import NavPrefsCore

/// The list of profiles (for admins), keyed by name, each with the bytes it holds.
extension TransactionalStore {
    public func profiles(after: ProfileName?, limit: Int) async throws(StoreError) -> ProfilePage {
        let limit = max(1, limit)
        return try await read(snapshot: true) { transaction in
            // One row more than asked tells whether a next page exists without a second query.
            let rows = try transaction.rows(.listProfiles, .text(after?.rawValue ?? ""), .integer(Int64(limit) + 1))
            let profiles = try rows.prefix(limit).map { row in try Self.profileSummary(row, in: transaction) }
            return ProfilePage(profiles: profiles, next: rows.count > limit ? profiles.last?.name : nil)
        }
    }

    private static func profileSummary(_ row: StoreRow, in transaction: any StoreTransaction) throws -> ProfileSummary {
        let text = try row.text(0)
        guard let name = try? ProfileName(text) else {
            throw StoreError.corrupted(reason: "the stored profile name '\(text.prefix(80))' is not a valid name")
        }
        let storage = try transaction.firstRow(.profileStorage, .text(name.rawValue))
        let (quota, log) = (Int(try storage?.int64(0) ?? 0), Int(try storage?.int64(1) ?? 0))
        return ProfileSummary(name: name, createdAt: try row.int64(1), latestEventID: try row.int64(2),
                              storageBytes: quota + log, eventLogBytes: log)
    }

    /// The `limit` profiles holding the most bytes, largest first (for `/metrics`): every byte
    /// each holds, and of those its event log's.
    public func largestProfiles(limit: Int) async throws(StoreError) -> [ProfileStorage] {
        try await read(snapshot: true) { transaction in
            try transaction.rows(.profileUsages).prefix(max(0, limit)).compactMap { row in
                guard let name = try? ProfileName(try row.text(0)) else { return nil }
                return ProfileStorage(profile: name, bytes: Int(try row.int64(1)), eventLogBytes: Int(try row.int64(2)))
            }
        }
    }
}
