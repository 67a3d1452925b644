package import Foundation

// The one way the stores and the API run blocking work on a thread of its own: a worker thread
// with a setup its starter waits for (``startWorkerThread(name:exited:setup:run:)``), fed by a
// ``JobQueue``; a one-off blocking call awaited from a task (``runOffThePool(_:)``,
// ``waitOffThePool(_:)``), which keeps the task pool's few threads free meanwhile.

/// Starts a named thread that first runs `setup` (reporting its error back to the caller, who
/// waits for it), then `run`, and signals `exited` once the state `setup` made is released
/// (for SQLite: once the connection is closed).
package func startWorkerThread<State>(
    name: String,
    exited: DispatchSemaphore,
    setup: @escaping @Sendable () throws -> State,
    run: @escaping @Sendable (State) -> Void
) throws {
    let ready = DispatchSemaphore(value: 0)
    let failure = SharedState<(any Error)?>(nil)
    // `state` lives in this closure, so it is released before `exited` is signalled.
    startWorkerThread(name: name, exited: exited) {
        let state: State
        do {
            state = try setup()
        } catch {
            failure.withLock { $0 = error }
            ready.signal()
            return
        }
        ready.signal()
        run(state)
    }
    ready.wait()
    if let error = failure.withLock({ $0 }) { throw error }
}

/// Starts a named thread that runs `run` and then signals `exited`: a loop over a queue or a
/// clock until its owner stops it, which joins it by waiting for `exited`. The other threads
/// start through ``startNamedThread(_:_:)``: PostgreSQL's abandonable connect, and the one-off
/// threads of ``runOffThePool(_:)`` and ``waitOffThePool(_:)`` below. Only the event loop's
/// (MicroHTTPServer, below this module) and the client's (a library of its own) start otherwise.
package func startWorkerThread(name: String, exited: DispatchSemaphore, run: @escaping @Sendable () -> Void) {
    startNamedThread(name) {
        defer { exited.signal() }
        run()
    }
}

/// Starts a thread that the operating system shows by `name` (`top -H`, `perf report --sort
/// comm`, `/proc/PID/task/*/comm`). Foundation on Linux keeps a name set before `start()` to
/// itself, so every thread of the service showed as the task pool's (`…root.default-qos`); a
/// thread's name reaches the kernel only when the thread sets it itself (``nameThisThread(_:)``).
/// Linux refuses a name over 15 bytes (it then keeps the old one), so every name here is at most that.
package func startNamedThread(_ name: String, _ body: @escaping @Sendable () -> Void) {
    assert(name.utf8.count <= 15, "Linux keeps no thread name over 15 bytes: \(name)")
    let thread = Thread {
        nameThisThread(name)
        body()
    }
    thread.start()
}

/// Names the calling thread where the operating system shows it: Linux's own file for it, since
/// Glibc's `pthread_setname_np` is not visible to Swift and `Thread.current.name = name` names
/// the thread by the handle `start()` keeps, which the new thread may run before it is kept
/// (then nothing is named: a name was missing in 1 run in 3 under load).
package func nameThisThread(_ name: String) {
    try? name.write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
}

/// Runs blocking `body` (joining worker threads, waiting for a queue to drain) on a thread of its
/// own, so that the caller's cooperative-pool thread, one of only as many as there are cores,
/// stays free for other tasks meanwhile.
package func waitOffThePool(_ body: @escaping @Sendable () -> Void) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        startNamedThread("store-close") {
            body()
            continuation.resume()
        }
    }
}

/// Runs blocking `body` (opening a database, migrating it) on a thread of its own and returns
/// its value, keeping the caller's cooperative-pool thread free meanwhile.
package func runOffThePool<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, any Error>, Never>) in
        startNamedThread("store-open") { continuation.resume(returning: Result { try body() }) }
    }
    return try result.get()
}

/// Gives the calling thread a lower scheduling priority (nice 5) than the process' others, for
/// threads whose work may take long (large reads): the event loop and the store's writer then
/// get a core as soon as they wake. Linux keeps a nice value per thread, and `setpriority` with
/// 0 sets the calling thread's.
///
/// A thread created by such a thread inherits its nice value, and libdispatch creates the
/// threads of Swift's task pool from whichever thread enqueues a task when the pool grows: a
/// thread lowered here must start no thread or task and resume no continuation (an awaited
/// read's, the in-memory transport's answer), or the pool may keep a thread at nice 5 for good.
package func lowerThreadPriority() {
    _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 5)
}
