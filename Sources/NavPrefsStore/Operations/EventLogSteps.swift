package import NavPrefsCore

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
