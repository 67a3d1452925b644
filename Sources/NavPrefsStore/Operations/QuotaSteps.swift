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

    /// What `profile` holds before a write that may grow it, when a quota is set (`nil`: no
    /// quota, nothing to measure).
    static func before(_ profile: ProfileName, limits: StoreLimits, in transaction: any StoreTransaction) throws -> Int? {
        limits.profileQuotaBytes > 0 ? try usage(of: profile, in: transaction) : nil
    }

    /// Throws ``StoreError/quotaExceeded(quota:usage:)`` when the write just run makes `profile`
    /// hold more than `limits` allow and more than it held before (`before`): a write that
    /// frees bytes or keeps them (a removal, a smaller value) is never refused, also on a
    /// profile over its quota (one lowered since, or filled by keyed writes' records).
    static func check(_ profile: ProfileName, before: Int?, limits: StoreLimits, in transaction: any StoreTransaction) throws {
        guard limits.profileQuotaBytes > 0, let before else { return }
        let usage = try usage(of: profile, in: transaction)
        if usage > limits.profileQuotaBytes && usage > before {
            throw StoreError.quotaExceeded(quota: limits.profileQuotaBytes, usage: usage)
        }
    }
}
