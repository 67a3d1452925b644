public import NavPrefsCore

/// The list of profiles (for admins), keyed by name, each with the bytes it holds.
extension Store {
    /// At most `limit` (at least 1) profiles whose names sort after `after` (from the first when
    /// `nil`), in the byte order of their names on every database, and where the next page starts.
    public func profiles(after: ProfileName?, limit: Int) async throws(StoreError) -> ProfilePage {
        try await perform(.profiles(after: after, limit: limit))
    }

    /// The `limit` profiles holding the most bytes (quota and event log), largest first (for
    /// `/metrics`): every byte each holds, and of those its event log's.
    public func largestProfiles(limit: Int) async throws(StoreError) -> [ProfileStorage] {
        try await perform(.largestProfiles(limit: limit))
    }
}

extension StoreRead where Value == ProfilePage {
    /// ``Store/profiles(after:limit:)`` as a value.
    public static func profiles(after: ProfileName?, limit: Int) -> StoreRead {
        let limit = max(1, limit)
        return StoreRead(snapshot: true) { transaction in
            // One row more than asked tells whether a next page exists without a second query.
            let rows = try transaction.rows(.listProfiles, .text(after?.rawValue ?? ""), .integer(Int64(limit) + 1))
            let profiles = try rows.prefix(limit).map { row in try profileSummary(row, in: transaction) }
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
}

extension StoreRead where Value == [ProfileStorage] {
    /// ``Store/largestProfiles(limit:)`` as a value.
    public static func largestProfiles(limit: Int) -> StoreRead {
        StoreRead(snapshot: true) { transaction in
            try transaction.rows(.profileUsages).prefix(max(0, limit)).compactMap { row in
                guard let name = try? ProfileName(try row.text(0)) else { return nil }
                return ProfileStorage(profile: name, bytes: Int(try row.int64(1)), eventLogBytes: Int(try row.int64(2)))
            }
        }
    }
}
