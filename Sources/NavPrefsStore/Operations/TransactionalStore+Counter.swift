public import NavPrefsCore

/// The seed's counter (`numIndex`), semantics C-1..C-8.
extension StoreWrite where Value == CounterChange {
    /// ``Store/apply(_:toCounterOf:if:)`` as a value.
    public static func counter(_ operation: CounterOperation, of profile: ProfileName, if precondition: WritePrecondition?)
        -> StoreWrite {
        StoreWrite(of: profile, growsStorage: false, boundedWork: true) { transaction, _ in try apply(operation, to: profile, if: precondition, in: transaction) }
    }

    private static func apply(_ operation: CounterOperation, to profile: ProfileName, if precondition: WritePrecondition?,
                              in transaction: any StoreTransaction) throws -> WriteOutcome<CounterChange> {
        // A profile comes into being on its first write; a refused one rolls the creation back.
        guard let claim = try transaction.claimEventID(of: profile, creating: true, touchingPreferences: true) else {
            throw StoreError.internal(reason: "a profile created in this transaction is missing")
        }
        let range = operation.admissibleRange
        // The counter is a view every profile has (see TransactionSteps.checkView): If-None-Match: * admits
        // only one never written, version 0.
        let versions: StatementValue = switch precondition {
        case .version(let versions)?: .integers(versions.map(\.rawValue))
        case .absent?: .integers([Version.initial.rawValue])
        default: .null
        }
        let excluded: StatementValue = if case .noneOf(let versions)? = precondition { .integers(versions.map(\.rawValue)) } else { .null }
        // It runs after the claim, under the profile's lock: no other write can come between its
        // read and its write.
        guard let row = try transaction.firstRow(
            .applyCounter, .text(profile.rawValue), .optional(operation.assignedValue), .integer(operation.delta ?? 0),
            .integer(claim.eventID), .integer(range.lowerBound), .integer(range.upperBound), versions, excluded, transaction.authorValue)
        else {
            throw refusal(operation, profile: profile, precondition: precondition,
                          slot: try TransactionSteps.readSlot(WellKnownKey.counter, of: profile, in: transaction))
        }
        let state = CounterState(profile: profile, counter: Counter(try row.int64(0)), version: Version(try row.int64(1)))
        let logged = try TransactionSteps.log(.counter(operation, state), id: claim.eventID, for: profile, in: transaction)
        return WriteOutcome(CounterChange(operation: operation, state: state, eventID: claim.eventID), events: [logged],
                            counterView: .committed(state))
    }

    /// Why the guarded statement changed nothing, given the counter's slot as read in the same
    /// transaction (`nil`: the profile has none).
    private static func refusal(_ operation: CounterOperation, profile: ProfileName, precondition: WritePrecondition?,
                                slot: PreferenceSlot?) -> StoreError {
        let current = slot.map { CounterState(profile: profile, slot: $0) } ?? .fresh(profile)
        if let precondition, !TransactionSteps.admitsView(precondition, current.version) {
            return .preconditionFailed(current: current.version)
        }
        return .counter(.outOfRange(current: current.counter.value, operation: operation))
    }
}

extension StoreRead where Value == CounterState {
    /// ``Store/counter(of:)`` as a value.
    public static func counter(of profile: ProfileName) -> StoreRead {
        StoreRead(snapshot: false) { transaction in
            guard let slot = try TransactionSteps.readSlot(WellKnownKey.counter, of: profile, in: transaction) else { return .fresh(profile) }
            return CounterState(profile: profile, slot: slot)
        }
    }
}
