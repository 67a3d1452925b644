public import NavPrefsCore

/// The seed's counter (`numIndex`), semantics C-1..C-8.
extension TransactionalStore {
    public func counter(of profile: ProfileName) async throws(StoreError) -> CounterState {
        try await read(snapshot: false) { transaction in
            guard let slot = try Steps.readSlot(WellKnownKey.counter, of: profile, in: transaction) else {
                throw StoreError.profileNotFound(profile)
            }
            return CounterState(profile: profile, slot: slot)
        }
    }

    public func apply(_ operation: CounterOperation, toCounterOf profile: ProfileName, if precondition: WritePrecondition?)
        async throws(StoreError) -> CounterChange {
        try await write { transaction in try Self.apply(operation, to: profile, if: precondition, in: transaction) }
    }

    static func apply(_ operation: CounterOperation, to profile: ProfileName, if precondition: WritePrecondition?,
                      in transaction: any StoreTransaction) throws -> WriteOutcome<CounterChange> {
        // A profile comes into being on its first write, but never through a conditional write;
        // the counter exists whenever its profile does, so If-None-Match: * admits only a write
        // that creates the profile.
        let creating = precondition == nil || precondition == .absent
        guard let claim = try transaction.claimEventID(of: profile, creating: creating, touchingPreferences: true) else {
            throw StoreError.preconditionFailed(current: nil)
        }
        if precondition == .absent && !claim.created {
            throw StoreError.preconditionFailed(current: try Steps.readSlot(WellKnownKey.counter, of: profile, in: transaction)?.version ?? .initial)
        }
        let range = operation.admissibleRange
        let versions: StatementValue = if case .version(let versions)? = precondition { .integers(versions.map(\.rawValue)) } else { .null }
        let excluded: StatementValue = if case .noneOf(let versions)? = precondition { .integers(versions.map(\.rawValue)) } else { .null }
        // It runs after the claim, under the profile's lock: no other write can come between its
        // read and its write.
        guard let row = try transaction.firstRow(
            .applyCounter, .text(profile.rawValue), .optional(operation.assignedValue), .integer(operation.delta ?? 0),
            .integer(claim.eventID), .integer(range.lowerBound), .integer(range.upperBound), versions, excluded)
        else {
            throw refusal(operation, profile: profile, precondition: precondition,
                          slot: try Steps.readSlot(WellKnownKey.counter, of: profile, in: transaction))
        }
        let state = CounterState(profile: profile, counter: Counter(try row.int64(0)), version: Version(try row.int64(1)))
        let logged = try Steps.log(.counter(operation, state), id: claim.eventID, for: profile, in: transaction)
        return WriteOutcome(CounterChange(operation: operation, state: state, eventID: claim.eventID), events: [logged],
                            counterView: .committed(state))
    }

    /// Why the guarded statement changed nothing, given the counter's slot as read in the same
    /// transaction (`nil`: the profile has none).
    private static func refusal(_ operation: CounterOperation, profile: ProfileName, precondition: WritePrecondition?,
                                slot: PreferenceSlot?) -> StoreError {
        guard let slot else { return .preconditionFailed(current: nil) }
        let current = CounterState(profile: profile, slot: slot)
        if let precondition, !precondition.admits(current.version) {
            return .preconditionFailed(current: current.version)
        }
        return .counter(.outOfRange(current: current.counter.value, operation: operation))
    }
}
