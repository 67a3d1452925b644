import Synchronization

/// A value that a thread and the closures it runs share, behind a `Mutex`.
///
/// Why a class: `Mutex` and `Atomic` are noncopyable, so a closure cannot capture one; a value
/// that lives in no object both sides hold (a worker thread's setup error handed back to its
/// starter, a count kept across a read's retries) sits in this one. State of an object lives
/// in a `Mutex` or `Atomic` property of that object instead.
package final class SharedState<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    package init(_ value: Value) { mutex = Mutex(value) }

    /// Runs `body` with the value, locked.
    package func withLock<Result: Sendable, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        try mutex.withLock { (value: inout Value) throws(Failure) -> Result in try body(&value) }
    }
}
