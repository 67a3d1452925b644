public import NavPrefsCore

/// The list of profiles (for admins): one statement, keyed by name.
extension TransactionalStore {
    public func profiles(after: ProfileName?, limit: Int) async throws(StoreError) -> ProfilePage {
        let limit = max(1, limit)
        return try await read(snapshot: false) { transaction in
            // One row more than asked tells whether a next page exists without a second query.
            let rows = try transaction.rows(.listProfiles, .text(after?.rawValue ?? ""), .integer(Int64(limit) + 1))
            let profiles = try rows.prefix(limit).map(Self.profileSummary)
            return ProfilePage(profiles: profiles, next: rows.count > limit ? profiles.last?.name : nil)
        }
    }

    private static func profileSummary(_ row: StoreRow) throws(StoreError) -> ProfileSummary {
        let text = try row.text(0)
        guard let name = try? ProfileName(text) else {
            throw .corrupted(reason: "the stored profile name '\(text.prefix(80))' is not a valid name")
        }
        return ProfileSummary(name: name, createdAt: try row.int64(1), latestEventID: try row.int64(2))
    }
}
