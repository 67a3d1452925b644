/// The seed's counter (`numIndex`): starts at 0, goes up and down by whole steps, resets to 0,
/// and can be set. Semantics C-1 to C-8.
///
/// The seed keeps it as a decimal string (`"0"` when unset) and traps on `Int(index)! + 1` at the
/// edge of the integer range; here the value is an Int64 and leaving the range is an error.
public struct Counter: Sendable, Hashable {
    public let value: Int64

    public init(_ value: Int64) { self.value = value }

    /// A never-set counter (C-1).
    public static let initial = Counter(0)

    /// The seed's stored form: a base-10 integer string (C-5).
    public var stringValue: String { String(value) }

    /// The counter after `operation`, or why it is refused; the counter itself never changes.
    public func applying(_ operation: CounterOperation) throws(CounterError) -> Counter {
        guard operation.admissibleRange.contains(value) else {
            throw .outOfRange(current: value, operation: operation)
        }
        switch operation {
        case .increment(let step): return Counter(value + step.amount)
        case .decrement(let step): return Counter(value - step.amount)
        case .reset: return Counter(0)
        case .set(let newValue): return Counter(newValue)
        }
    }
}

/// A positive amount to move a counter by: `{"by": n}`, 1 by default.
public struct CounterStep: Sendable, Hashable {
    public let amount: Int64

    public static let one = CounterStep(unchecked: 1)

    /// Steps are 1 or more; a negative step would make `increment` and `decrement` ambiguous,
    /// and a zero step a write that changes nothing.
    public init(_ amount: Int64) throws(CounterError) {
        guard amount >= 1 else { throw .invalidStep(amount) }
        self.amount = amount
    }

    private init(unchecked amount: Int64) { self.amount = amount }
}

/// What a client can do to a counter: the seed's plus, minus and clear buttons, and a set.
public enum CounterOperation: Sendable, Hashable {
    case increment(CounterStep)
    case decrement(CounterStep)
    /// The seed's "clear": stores 0, it does not delete (C-3).
    case reset
    case set(Int64)

    /// The name used in events and responses.
    public var name: String {
        switch self {
        case .increment: "increment"
        case .decrement: "decrement"
        case .reset: "reset"
        case .set: "set"
        }
    }

    /// The current values from which the operation stays within Int64 (C-7). Stores use it as
    /// the guard of one atomic `UPDATE ... WHERE value BETWEEN lower AND upper`, so the rule lives
    /// here once and no store reads, computes in Swift and writes back.
    public var admissibleRange: ClosedRange<Int64> {
        switch self {
        case .increment(let step): Int64.min...(Int64.max - step.amount)
        case .decrement(let step): (Int64.min + step.amount)...Int64.max
        case .reset, .set: Int64.min...Int64.max
        }
    }

    /// The signed amount added by `increment`/`decrement`, `nil` for operations that assign.
    public var delta: Int64? {
        switch self {
        case .increment(let step): step.amount
        case .decrement(let step): -step.amount
        case .reset, .set: nil
        }
    }

    /// The value assigned by `reset`/`set`, `nil` for operations that add.
    public var assignedValue: Int64? {
        switch self {
        case .reset: 0
        case .set(let value): value
        case .increment, .decrement: nil
        }
    }
}

/// Why a counter operation is refused.
public enum CounterError: Error, Hashable {
    /// The result would leave Int64 (C-7: 409, value unchanged).
    case outOfRange(current: Int64, operation: CounterOperation)
    /// A step below 1.
    case invalidStep(Int64)
}
