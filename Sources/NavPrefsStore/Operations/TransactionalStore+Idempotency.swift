import NavPrefsCore

/// Writes under an `Idempotency-Key`: a retried request gets the first answer and changes
/// nothing twice, on every instance that shares the database and across a crash, because the
/// key, the write and its answer commit in one transaction.
///
/// The transaction first claims the key (an insert on the key's primary key). On PostgreSQL a
/// second request with the same key, on any instance, waits at that insert until the first
/// commits or rolls back; it then finds the first answer, or claims the key itself if the first
/// was refused. SQLite's single writer orders them the same way. Only accepted writes are
/// recorded: a refused one (412, 409...) changed nothing, so its retry is evaluated afresh.
/// A key older than ``StoreLimits/idempotencyWindow`` counts as unused and is pruned. Beyond
/// that, a profile keeps its ``StoreLimits/maxIdempotencyKeysPerProfile`` newest keys and a
/// token the ``StoreLimits/maxIdempotencyKeysPerToken`` newest it made, over all profiles; the
/// oldest go first.
extension TransactionalStore {
    public func perform<Value: Sendable>(_ write: StoreWrite<Value>, remembering request: IdempotentRequest,
                                         answer: @escaping @Sendable (Value) -> RecordedAnswer,
                                         completion: @escaping StoreCompletion<IdempotentOutcome>) {
        let limits = self.limits
        self.write(changing: write.profile, weight: write.weight, bounded: write.runsBounded(under: limits), { transaction in
            if let earlier = try IdempotencySteps.claim(request, window: limits.idempotencyWindow, in: transaction) {
                return WriteOutcome(earlier)
            }
            let before = write.growsStorage ? try QuotaSteps.before(request.profile, limits: limits, in: transaction) : nil
            let watched = EventLogSteps.Watch(transaction, limits: limits)
            let outcome = try write.steps(watched, limits)
            // The write is judged as without a key: its record has a bound of its own (a summary
            // of at most maxRecordedAnswerBytes, maxIdempotencyKeysPerProfile of them), so a keyed
            // removal on a full profile is accepted as an unkeyed one is.
            try QuotaSteps.check(request.profile, before: before, limits: limits, in: transaction)
            try watched.keepBound(of: request.profile, limits: limits)
            let recorded = answer(outcome.value)
            try IdempotencySteps.record(recorded.bounded(maxBodyBytes: limits.maxRecordedAnswerBytes), for: request, in: transaction)
            try transaction.run(.trimIdempotencyKeys, .text(request.profile.rawValue), .integer(Int64(limits.maxIdempotencyKeysPerProfile)))
            // An admin token may write to every profile: its keys are capped across them too.
            if let token = request.token {
                try transaction.run(.trimIdempotencyKeysOfToken, .text(token), .integer(Int64(limits.maxIdempotencyKeysPerToken)))
            }
            // The client that sent the write gets the whole answer; only a replay gets the summary.
            let remembered = try IdempotencySteps.rememberedFor(request.profile, limits: limits, in: transaction)
            return WriteOutcome(.performed(recorded, rememberedFor: remembered), events: outcome.events, counterView: outcome.counterView)
        }, completion: completion)
    }
}

/// The steps of a write under an idempotency key.
enum IdempotencySteps {
    /// Claims `request`'s key for this transaction; `nil` when it is claimed (new, or expired
    /// and taken over), else what an earlier request with the key left: its answer, or
    /// ``IdempotentOutcome/keyReused`` when that request was another.
    static func claim(_ request: IdempotentRequest, window: Duration, in transaction: any StoreTransaction) throws
        -> IdempotentOutcome? {
        let profile = StatementValue.text(request.profile.rawValue), key = StatementValue.text(request.key)
        if try transaction.firstRow(.claimIdempotencyKey, profile, key, .text(request.fingerprint),
                                    .integer(window.clockMilliseconds), request.token.map(StatementValue.text) ?? .null) != nil {
            return nil
        }
        guard let row = try transaction.firstRow(.idempotentAnswer, profile, key) else {
            throw StoreError.internal(reason: "an idempotency key neither claimed nor found")
        }
        guard try row.text(0) == request.fingerprint else { return .keyReused }
        let status = try row.int64(1)
        // Claimed rows commit with their answer: a status of 0 was never committed by the store.
        guard (100...599).contains(status) else { throw StoreError.corrupted(reason: "an idempotency key without an answer") }
        return .replayed(RecordedAnswer(status: Int(status), headers: try fields(TransactionSteps.parse(try row.text(2))), body: try row.text(3)))
    }

    /// Stores the answer under the key claimed in this transaction.
    static func record(_ answer: RecordedAnswer, for request: IdempotentRequest, in transaction: any StoreTransaction) throws {
        let headers = JSONValue.array(answer.headers.map { .array([.string($0.name), .string($0.value)]) })
        try transaction.run(.recordIdempotentAnswer, .text(request.profile.rawValue), .text(request.key),
                            .integer(Int64(answer.status)), .text(headers.jsonText), .text(answer.body))
    }

    /// How long `profile` remembers its keys as things stand: the window, or, while it holds
    /// its cap of keys, the age of its oldest (a key is forgotten once the cap's worth of newer
    /// ones came, so that is how long one lasts at the profile's recent rate). Index lookups only.
    static func rememberedFor(_ profile: ProfileName, limits: StoreLimits, in transaction: any StoreTransaction) throws -> Duration {
        guard let row = try transaction.firstRow(.idempotencyKeysKept, .text(profile.rawValue)),
              let oldest = try row.optionalInt64(0), let span = try row.optionalInt64(1),
              span >= Int64(limits.maxIdempotencyKeysPerProfile)
        else { return limits.idempotencyWindow }
        return min(.milliseconds(max(0, try row.int64(2) - oldest)), limits.idempotencyWindow)
    }

    /// Deletes up to `limit` keys older than `window`; how many went.
    static func prune(olderThan window: Duration, limit: Int, in transaction: any StoreTransaction) throws -> Int {
        try transaction.rows(.pruneIdempotencyKeys, .integer(window.clockMilliseconds), .integer(Int64(limit))).count
    }

    /// Header fields as recorded: a JSON array of `[name, value]` pairs.
    private static func fields(_ value: JSONValue) throws -> [RecordedAnswer.Field] {
        guard case .array(let pairs) = value else { throw StoreError.corrupted(reason: "recorded headers are not an array") }
        return try pairs.map { pair in
            guard case .array(let members) = pair, members.count == 2, case .string(let name) = members[0],
                  case .string(let value) = members[1]
            else { throw StoreError.corrupted(reason: "a recorded header is not a [name, value] pair") }
            return RecordedAnswer.Field(name: name, value: value)
        }
    }
}

extension Duration {
    /// The duration in whole milliseconds, as the database's clock counts.
    var clockMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
