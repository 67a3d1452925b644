import Foundation

/// A value guarded by a lock, for state several threads and tasks share.
///
/// Foundation's `NSLock` rather than `Synchronization.Mutex`, so that the library builds for
/// every Apple platform it declares, not only those `Mutex` needs (macOS 15, iOS 18).
///
/// Safety (`@unchecked Sendable`): `value` is only read or written with `lock` held.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    /// Runs `body` with the lock held; keep it short and never call out of the library in it.
    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// A NotificationCenter, UserDefaults or URLSession handed across tasks.
///
/// Safety (`@unchecked Sendable`): Foundation documents all three as safe to use from any
/// thread; some SDKs do not mark them `Sendable` yet.
struct Shared<Object>: @unchecked Sendable {
    let object: Object
    init(_ object: Object) { self.object = object }
}
