public import NavPrefsCore

/// One write of the store algorithm as a value: the steps it runs inside a write transaction,
/// given the store's limits.
///
/// Every write of ``Store`` is built from one of these (the constructors live beside their
/// operations in the `Operations` folder) and run by ``Store/perform(_:)``. Being a value, the
/// same write can also run under an idempotency key (``Store/perform(_:remembering:answer:)``):
/// the key's claim and the recorded answer join the write's own transaction, with the write's
/// steps unchanged.
public struct StoreWrite<Value: Sendable>: Sendable {
    /// The profile the write changes: it locks that profile's row first, and nothing of another
    /// profile. A store may run writes of different profiles in one transaction, in the order
    /// of their profiles, so that no two transactions wait for each other's locks.
    let profile: ProfileName
    let steps: @Sendable (any StoreTransaction, StoreLimits) throws -> WriteOutcome<Value>
    /// Whether the write can make the profile hold more bytes: such writes check the profile's
    /// quota in their transaction (``StoreLimits/profileQuotaBytes``); the counter, the font
    /// and deletions hold a fixed size or less, and skip the check (the counter is the hot path).
    let growsStorage: Bool
    /// Whether the write's own steps do a bounded amount of work whatever its profile holds (a
    /// few rows by key, a value no larger than its request): a store may then run it on the
    /// calling thread, in the event loop's turn (``runsBounded(under:)``). A write that reads
    /// a whole profile (a multi-key `PATCH` answers every value) or a whole session does not.
    let boundedWork: Bool
    /// What the write carries, in bytes (its request's body): a store with one writer commits
    /// the heavy ones apart from the light ones, so that one profile's large writes do not hold
    /// another profile's small one back (``weighing(_:)``; 0: light).
    private(set) var weight = 0

    /// This write, weighing `bytes` (what its request carried).
    public func weighing(_ bytes: Int) -> StoreWrite {
        var weighed = self
        weighed.weight = bytes
        return weighed
    }

    init(of profile: ProfileName, growsStorage: Bool = true, boundedWork: Bool = false,
         _ steps: @escaping @Sendable (any StoreTransaction, StoreLimits) throws -> WriteOutcome<Value>) {
        self.profile = profile
        self.growsStorage = growsStorage
        self.boundedWork = boundedWork
        self.steps = steps
    }

    /// Whether all the write does under `limits` is bounded: its steps are
    /// (``boundedWork``), and it measures no quota, which sums every row of the profile.
    func runsBounded(under limits: StoreLimits) -> Bool {
        boundedWork && (!growsStorage || limits.profileQuotaBytes == 0)
    }
}

extension StoreWrite {
    /// The same write, made by `author`: its steps see the author on their transaction
    /// (``StoreTransaction/author``), which records it in the write's events and beside the
    /// values it stores, in the write's own transaction. The steps themselves are unchanged, so
    /// whichever way a store runs writes (alone, grouped, under an idempotency key) runs this one,
    /// with the same weight, and in the event loop's turn when the write may run there.
    public func by(_ author: ChangeAuthor) -> StoreWrite {
        let steps = self.steps
        // Written once per request, not per statement that binds it.
        let text = author.json.jsonText
        var authored = StoreWrite(of: profile, growsStorage: growsStorage, boundedWork: boundedWork) { transaction, limits in
            try steps(AuthoredTransaction(base: transaction, author: author, authorText: text), limits)
        }
        authored.weight = weight
        return authored
    }
}

/// A write's transaction that knows who makes the write (``StoreWrite/by(_:)``); everything
/// else goes to the transaction it wraps.
struct AuthoredTransaction: StoreTransaction {
    let base: any StoreTransaction
    let author: ChangeAuthor?
    let authorText: String?

    func rows(_ statement: StoreStatement, _ values: [StatementValue]) throws -> [StoreRow] {
        try base.rows(statement, values)
    }

    func claimEventID(of profile: ProfileName, creating: Bool, touchingPreferences: Bool) throws -> EventClaim? {
        try base.claimEventID(of: profile, creating: creating, touchingPreferences: touchingPreferences)
    }
}
