import Dispatch
import Foundation
import NavPrefsCore
import NavPrefsStore
import Synchronization

/// The store's one `LISTEN` connection, on a thread of its own: every instance's writes notify
/// `navprefs_events` with `profile:id` when they commit, and the listener reads those entries
/// from the log and publishes them to the store's feed, so a subscriber here sees changes made
/// through any instance.
///
/// Notifications are not stored: a listener that lost its connection misses what was committed
/// meanwhile. So after reconnecting it `LISTEN`s first, then reads from the log everything after
/// the feed's position for every profile it has published for (``EventSequencer``); what
/// commits after the `LISTEN` is notified anyway, and duplicates are dropped.
final class PostgresListener: Sendable {
    static let channel = "navprefs_events"

    private struct Requests: ~Copyable {
        var catchUps: Set<ProfileName> = []
        var stopping = false
    }

    private let requests = Mutex(Requests())
    private let wake: WakePipe
    private let stopped = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)

    init() {
        wake = WakePipe()
    }

    /// Connects and `LISTEN`s on a thread of its own before returning, so that every commit
    /// after this returns is notified; throws if that first connection fails.
    func start(connect: @escaping @Sendable () throws(PostgresError) -> PostgresConnection, sequencer: EventSequencer) throws {
        guard wake.isOpen else { throw StoreError.unavailable(reason: "cannot make a pipe: out of file descriptors") }
        // The thread holds the listener until ``close()`` stops it.
        try startWorkerThread(name: "pg-listener", exited: stopped, setup: {
            try Self.listen(connect, sequencer)
        }) { first in
            self.run(from: first, connect: connect, sequencer: sequencer)
        }
        started.store(true, ordering: .releasing)
    }

    /// The thread's loop: wait for notifications or requests, publish, reconnect after a loss.
    private func run(
        from first: PostgresConnection, connect: @Sendable () throws(PostgresError) -> PostgresConnection, sequencer: EventSequencer
    ) {
        var connection: PostgresConnection? = first
        var backoff = Backoff()
        while !requests.withLock({ $0.stopping }) {
            guard let current = connection else {
                _ = wake.wait(timeoutMilliseconds: Int32(clamping: backoff.remaining.wholeMilliseconds))
                wake.drain()
                guard !requests.withLock({ $0.stopping }) else { break }
                do {
                    connection = try Self.listen(connect, sequencer)
                    backoff.succeeded()
                } catch {
                    backoff.failed(String(describing: error))
                }
                continue
            }
            do {
                // Notifications libpq has read already, also while this thread ran its own
                // queries, come first: the socket will not signal them again.
                let received = current.notifications()
                if !received.isEmpty {
                    try Self.process(received, on: current, sequencer)
                    continue
                }
                let catchUps = requests.withLock { requests in
                    defer { requests.catchUps = [] }
                    return requests.catchUps
                }
                for profile in catchUps {
                    if let after = sequencer.position(of: profile) {
                        try Self.catchUp([profile: after], on: current, sequencer)
                    }
                }
                guard catchUps.isEmpty else { continue }
                // Wakes for notifications, for requests, and every 30 s to check an idle connection.
                let ready = current.waitForInput(orWake: wake.readDescriptor, timeoutMilliseconds: 30_000)
                if ready.wake { wake.drain() }
                if !ready.input && !ready.wake { try current.query("SELECT 1") }
                try current.consumeInput()
            } catch {
                // A statement the server refused leaves the connection usable; a loss does not.
                if !current.isAlive || (error as? PostgresError)?.isConnectionLost == true {
                    sequencer.listenerLost()
                    connection = nil
                }
            }
        }
        sequencer.listenerLost()
    }

    /// Asks the listener to publish what the log holds after the feed's position for `profile`.
    func requestCatchUp(of profile: ProfileName) {
        requests.withLock { _ = $0.catchUps.insert(profile) }
        wake.signal()
    }

    /// Stops the thread and closes its connection.
    func close() {
        let first = requests.withLock { requests in
            defer { requests.stopping = true }
            return !requests.stopping
        }
        guard first, started.load(ordering: .acquiring) else { return }
        wake.signal()
        stopped.wait()
    }

    // MARK: Listener thread

    /// Connects, `LISTEN`s, and catches up every profile the feed has a position for.
    private static func listen(
        _ connect: @Sendable () throws(PostgresError) -> PostgresConnection, _ sequencer: EventSequencer
    ) throws -> PostgresConnection {
        let connection = try connect()
        try connection.execute("LISTEN \(channel)")
        try catchUp(sequencer.listenerConnected(), on: connection, sequencer)
        return connection
    }

    /// Publishes the logged events behind `notifications` (payload `profile:id`), per profile in
    /// id order, starting where the feed is (see ``EventSequencer/notified(_:first:last:)``).
    ///
    /// One query reads the events of every profile of the batch (in chunks of 500 profiles), not
    /// one per profile: with writes spread over many profiles and several instances, each
    /// instance's listener would otherwise run as many queries as the others commit profiles,
    /// load on the shared PostgreSQL that grows with every instance added. A profile whose
    /// events do not cover the feed's position yet is read again, at most 4 times.
    private static func process(
        _ notifications: [(channel: String, payload: String)], on connection: PostgresConnection, _ sequencer: EventSequencer
    ) throws {
        guard !notifications.isEmpty else { return }
        var ranges: [ProfileName: (first: Int64, last: Int64)] = [:]
        var order: [ProfileName] = []
        for notification in notifications where notification.channel == channel {
            guard let colon = notification.payload.lastIndex(of: ":"),
                  let profile = try? ProfileName(String(notification.payload[..<colon])),
                  let id = Int64(notification.payload[notification.payload.index(after: colon)...])
            else { continue }
            if let range = ranges[profile] {
                ranges[profile] = (min(range.first, id), max(range.last, id))
            } else {
                ranges[profile] = (id, id)
                order.append(profile)
            }
        }
        var pending = order
        for _ in 0..<4 where !pending.isEmpty {
            var positions: [ProfileName: Int64] = [:]
            for profile in pending {
                guard let range = ranges[profile], let after = sequencer.notified(profile, first: range.first, last: range.last)
                else { continue }
                positions[profile] = after
            }
            var uncovered: [ProfileName] = []
            for start in stride(from: 0, to: pending.count, by: 500) {
                let chunk = pending[start..<min(start + 500, pending.count)].filter { positions[$0] != nil }
                guard !chunk.isEmpty else { continue }
                let found = try connection.events(after: Dictionary(uniqueKeysWithValues: chunk.compactMap { profile in
                    positions[profile].map { (profile, $0) }
                }))
                for profile in chunk {
                    guard let after = positions[profile] else { continue }
                    if !sequencer.deliver(found[profile] ?? [], of: profile, coveringAfter: after) { uncovered.append(profile) }
                }
            }
            pending = uncovered
        }
    }

    /// Publishes everything the log holds after the given position of each profile.
    private static func catchUp(
        _ positions: [ProfileName: Int64], on connection: PostgresConnection, _ sequencer: EventSequencer
    ) throws {
        let all = Array(positions)
        for start in stride(from: 0, to: all.count, by: 500) {
            let chunk = all[start..<min(start + 500, all.count)]
            let found = try connection.events(after: Dictionary(uniqueKeysWithValues: chunk.map { ($0.key, $0.value) }))
            for (profile, after) in chunk {
                if let events = found[profile] { _ = sequencer.deliver(events, of: profile, coveringAfter: after) }
            }
        }
    }
}

/// A pipe whose only purpose is to wake a thread waiting in `poll` (the listener).
final class WakePipe: Sendable {
    let readDescriptor: Int32
    private let writeDescriptor: Int32

    /// Opens the pipe; ``isOpen`` is `false` if the process has no descriptor left.
    init() {
        var descriptors: [Int32] = [-1, -1]
        if pipe(&descriptors) != 0 { descriptors = [-1, -1] }
        readDescriptor = descriptors[0]
        writeDescriptor = descriptors[1]
        for descriptor in descriptors where descriptor >= 0 {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
    }

    var isOpen: Bool { readDescriptor >= 0 }

    deinit {
        guard isOpen else { return }
        close(readDescriptor)
        close(writeDescriptor)
    }

    /// Makes the read end readable (a full pipe is readable already, so a failed write is fine).
    func signal() {
        var byte: UInt8 = 1
        _ = write(writeDescriptor, &byte, 1)
    }

    /// Empties the pipe.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readDescriptor, &buffer, buffer.count) > 0 {}
    }

    /// Waits until signalled, at most `timeoutMilliseconds`; answers whether it was.
    func wait(timeoutMilliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: readDescriptor, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, timeoutMilliseconds) > 0
    }
}

extension Duration {
    /// Whole milliseconds, rounded up so a short wait never becomes a busy loop of zeros.
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    }
}
