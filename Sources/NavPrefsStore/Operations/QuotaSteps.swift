import NavPrefsCore

/// The per-profile storage quota (``StoreLimits/profileQuotaBytes``), checked inside the write's
/// own transaction after its steps ran: what the profile would hold is measured with the write
/// in it, and a write over the quota throws, which rolls back everything it did. One bounded
/// query per write that can grow a profile (its rows only, by primary key); the counter skips it.
enum QuotaSteps {
    /// The bytes `profile` holds now, as this transaction sees it.
    static func usage(of profile: ProfileName, in transaction: any StoreTransaction) throws -> Int {
        guard let row = try transaction.firstRow(.profileUsage, .text(profile.rawValue)) else { return 0 }
        return Int(try row.int64(0))
    }

    /// Throws ``StoreError/quotaExceeded(quota:usage:)`` when `profile` holds more than `limits` allow.
    static func check(_ profile: ProfileName, limits: StoreLimits, in transaction: any StoreTransaction) throws {
        guard limits.profileQuotaBytes > 0 else { return }
        let usage = try usage(of: profile, in: transaction)
        if usage > limits.profileQuotaBytes { throw StoreError.quotaExceeded(quota: limits.profileQuotaBytes, usage: usage) }
    }
}
