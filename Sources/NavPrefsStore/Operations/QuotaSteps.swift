package import NavPrefsCore

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

/// The bound on a profile's event log in bytes (``StoreLimits/maxEventLogBytes``), kept by the
/// writes that log. A write deletes its profile's oldest events when one of its events crosses
/// a step of a sixteenth of the bound in the profile's log (``Watch``), down to fifteen
/// sixteenths: the log never holds more than the bound, and a write that crosses no step (most
/// of them: a counter step logs 130 bytes, a step of the default bound is 512 KiB) runs no
/// statement for it. The statement reads a few rows by primary key (1.7 µs of SQLite's time
/// when it deletes nothing, measured), and one more per event it deletes.
package enum EventLogSteps {
    /// Deletes `profile`'s oldest events beyond `bytes` (the newest always stays).
    package static func trim(_ profile: ProfileName, to bytes: Int, in transaction: any StoreTransaction) throws {
        try transaction.run(.trimEventLog, .text(profile.rawValue), .integer(Int64(bytes)))
    }

    /// The whole bound (the pruning's, for events logged outside a write).
    package static func trim(_ profile: ProfileName, limits: StoreLimits, in transaction: any StoreTransaction) throws {
        guard limits.maxEventLogBytes > 0 else { return }
        try trim(profile, to: limits.maxEventLogBytes, in: transaction)
    }

    /// A write's transaction, watched: whether an event it logged crossed a step of the bound.
    final class Watch: StoreTransaction {
        let base: any StoreTransaction
        let step: Int64
        private(set) var crossed = false

        init(_ base: any StoreTransaction, limits: StoreLimits) {
            self.base = base
            step = Int64(max(1, limits.maxEventLogBytes / 16))
        }

        func rows(_ statement: StoreStatement, _ values: [StatementValue]) throws -> [StoreRow] {
            let rows = try base.rows(statement, values)
            if statement == .appendEvent, !crossed, let row = rows.first,
               let start = try row.optionalInt64(1), let size = try row.optionalInt64(2) {
                crossed = start / step != (start + size) / step
            }
            return rows
        }

        func claimEventID(of profile: ProfileName, creating: Bool, touchingPreferences: Bool) throws -> EventClaim? {
            try base.claimEventID(of: profile, creating: creating, touchingPreferences: touchingPreferences)
        }

        /// After the write's steps: trims when it crossed a step.
        func keepBound(of profile: ProfileName, limits: StoreLimits) throws {
            guard crossed, limits.maxEventLogBytes > 0 else { return }
            try EventLogSteps.trim(profile, to: limits.maxEventLogBytes - Int(step), in: base)
        }
    }
}
