import Foundation

/// The profile's queued writes, in order: the durable file, the entries not answered yet, and
/// the promises of the ``PendingWrite``s handed out in this process.
final class Outbox: Sendable {
    let file: OutboxFile
    private let state: Locked<State>
    /// Woken when a write is queued.
    let wakeup = Wakeup()

    private struct State {
        var queue: [OutboxEntry]
        var promises: [String: Promise<JSON>] = [:]
    }

    init(file: OutboxFile) {
        self.file = file
        state = Locked(State(queue: file.load()))
    }

    /// The entries not answered yet (read at launch: their effects go on top of the mirror).
    var entries: [OutboxEntry] { state.withLock { $0.queue } }
    var count: Int { state.withLock { $0.queue.count } }
    var first: OutboxEntry? { state.withLock { $0.queue.first } }

    /// Writes `entry` to the file, then queues it.
    func enqueue(_ entry: OutboxEntry) throws(NavPrefsError) -> Promise<JSON> {
        let promise = Promise<JSON>()
        try state.withLock { (state: inout State) throws(NavPrefsError) in
            try file.append(entry)
            state.queue.append(entry)
            state.promises[entry.id] = promise
        }
        wakeup.wake()
        return promise
    }

    /// Records `id`'s outcome: done on disk, out of the queue, its promise fulfilled. A
    /// successful write rebases the queued writes that carried the same condition on the same
    /// path (two `basedOnWhatISaw` writes of one key in a row) onto the version it made, so that
    /// this device never conflicts with itself.
    func complete(_ id: String, _ result: Result<JSON, NavPrefsError>) {
        let promise = state.withLock { state -> Promise<JSON>? in
            guard let index = state.queue.firstIndex(where: { $0.id == id }) else { return nil }
            let done = state.queue.remove(at: index)
            if case .success(let body) = result, !done.conditions.isEmpty, let version = body["version"]?.int64Value {
                for later in state.queue.indices where state.queue[later].path == done.path && state.queue[later].conditions.elementsEqual(
                    done.conditions, by: { $0 == $1 }) {
                    state.queue[later].conditions = [("If-Match", "\"\(version)\"")]
                }
            }
            try? file.markDone(id, empty: state.queue.isEmpty)
            return state.promises.removeValue(forKey: id)
        }
        promise?.fulfill(result)
    }

    /// Deletes the outbox (the app signs out): queued writes are dropped.
    func erase() {
        let promises = state.withLock { state in
            defer { state = State(queue: []) }
            return Array(state.promises.values)
        }
        file.erase()
        for promise in promises { promise.fulfill(.failure(.cancelled)) }
    }
}
