import Dispatch
import Foundation
import Glibc
import NavPrefsCore
import NavPrefsStore
import Synchronization

/// The flush of ``Durability/full``, off the threads that commit: the write connection commits
/// with `synchronous=NORMAL` (the write-ahead log written, not flushed), and this thread
/// `fdatasync`s the log and only then releases what those commits hold back: their events to
/// the feed, then their answers, in commit order.
///
/// Why: a flush took 1.6-4 ms on the disk it was measured on; on the event loop it would stop
/// every client for that long. Here the loop goes on reading and committing the next turn while
/// the flush runs, and one flush covers every commit written before it started, so the commits
/// made meanwhile share the next one (group commit, with no writer thread on the hot path).
///
/// What makes it durable: SQLite writes a commit's frames to the log before `COMMIT` returns,
/// and a release is queued only after that, so the `fdatasync` that follows covers them. A
/// checkpoint syncs the log before it copies pages into the database and the database after
/// (SQLite does that at `NORMAL` too), and the log is restarted only after a completed
/// checkpoint, so frames overwritten by a restart are in the synced database already.
/// `Tests/NavPrefsEndToEndTests/PowerLossTests.swift` checks it against the files as a power
/// loss would leave them (each as of its last completed flush).
///
/// A failed flush (`EIO`) leaves it unknown what the disk holds: Linux may drop the pages it
/// could not write. The writes it covered are answered 503, their events dropped, and every
/// later write is refused with 503 until the service restarts and SQLite reads the log again,
/// as PostgreSQL stops on a failed `fsync`.
final class WALSyncer: Sendable {
    private struct Release: Sendable {
        let events: [LoggedEvent]
        let jobs: [any WriteJob]
    }

    private let queue = JobQueue<Release>()
    private let exited = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)
    /// Set by a failed flush; every write is refused from then on.
    private let failure = Mutex<StoreError?>(nil)
    /// Flushes done, and writes answered after them (for tests and `/metrics`).
    let flushes = Atomic<Int>(0)
    let writesReleased = Atomic<Int>(0)
    /// Held by the thread around each flush and its releases, and by ``holdingFlushes(_:)``.
    private let flushHold = Mutex<Void>(())
    /// Whether a flush (and its releases) is under way: what commits now waits for the next one.
    private let flushing = Atomic<Bool>(false)
    /// Set by a turn that keeps its transaction open until the flush under way ends
    /// (``holdForFlush()``); the thread then calls `wakeTurns` once that flush is done.
    private let turnWaits = Atomic<Bool>(false)
    /// The wake-up, in a box: a closure kept directly in a `Mutex` gained two reabstraction
    /// thunks at every `withLock { $0 }` (its `inout` value is converted in and written back),
    /// so the chain grew by two frames at every wake, without bound: 2.3 % of a FULL write's
    /// CPU after 40 s at c = 16 (perf), and a stack overflow in time.
    private final class Wake: Sendable {
        let call: @Sendable () -> Void
        init(_ call: @escaping @Sendable () -> Void) { self.call = call }
    }
    private let wakeTurns = Mutex<Wake?>(nil)

    init() {}

    /// Whether a flush (and its releases) is under way.
    var isFlushing: Bool { flushing.load(ordering: .sequentiallyConsistent) }

    /// Why writes are refused, once a flush failed.
    var failed: StoreError? { failure.withLock { $0 } }

    /// Opens the log at `walPath` (SQLite created it when the database went into WAL mode),
    /// makes its directory entry durable once, and starts the thread.
    func start(walPath: String, feed: EventFeed) throws(StoreError) {
        let descriptor = open(walPath, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .unavailable(reason: "cannot open the write-ahead log \(walPath): \(String(cString: strerror(errno)))")
        }
        // SQLite syncs the log's directory only when it syncs the log itself, which it no longer
        // does at commit: without this a power loss could take the whole file's entry with it.
        let directory = open(URL(fileURLWithPath: walPath).deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            Glibc.close(directory)
        }
        startWorkerThread(name: "sqlite-wal-sync", exited: exited) { [self] in
            defer { Glibc.close(descriptor) }
            while let taken = queue.take(upTo: .max) {
                flushing.store(true, ordering: .sequentiallyConsistent)
                flushHold.withLock { _ in flushAndRelease(taken, descriptor: descriptor, walPath: walPath, feed: feed) }
                flushing.store(false, ordering: .sequentiallyConsistent)
                if turnWaits.exchange(false, ordering: .sequentiallyConsistent), let wake = wakeTurns.withLock({ $0 }) { wake.call() }
            }
        }
        started.store(true, ordering: .releasing)
    }

    /// One flush, then what it made durable: every event of the flush first, in commit order,
    /// then every answer; on a failed flush, every write it covered answered with the failure.
    private func flushAndRelease(_ taken: ArraySlice<Release>, descriptor: Int32, walPath: String, feed: EventFeed) {
        let failed = flush(descriptor, walPath: walPath)
        flushes.add(1, ordering: .relaxed)
        if let failed {
            for release in taken { for job in release.jobs { job.abandon(failed) } }
            return
        }
        feed.publish(taken.flatMap(\.events))
        var count = 0
        for release in taken {
            for job in release.jobs { job.finish() }
            count += release.jobs.count
        }
        writesReleased.add(count, ordering: .relaxed)
    }

    /// Queues what a commit holds back (on the committing thread, with the write connection
    /// held: releases queue in commit order); released after the next flush.
    func release(events: [LoggedEvent], answering jobs: [any WriteJob]) {
        guard !events.isEmpty || !jobs.isEmpty else { return }
        if !queue.submit(Release(events: events, jobs: jobs)) {
            // Closed: nothing commits after the store closed; answer rather than lose them.
            for job in jobs { job.abandon(.closed) }
        }
    }

    /// Runs `body` while no flush starts: what commits meanwhile waits, unanswered and unpublished.
    /// For tests that look at a commit whose flush is still pending.
    func holdingFlushes<T: Sendable>(_ body: () throws -> T) rethrows -> T {
        try flushHold.withLock { _ in try body() }
    }

    /// How the thread whose turns may keep a transaction open across a flush is woken once
    /// that flush is done (the event loop's waker), or `nil`: no turn does.
    func wakeTurns(with wake: (@Sendable () -> Void)?) {
        wakeTurns.withLock { $0 = wake.map(Wake.init) }
    }

    /// For a turn that could commit now: `true` when a flush is under way (a commit now would
    /// wait for the next one anyway), and the turn is woken when it is done (``wakeTurns(with:)``),
    /// so it may keep its transaction open and commit then, sharing one commit with the turns
    /// that follow meanwhile; `false` when the syncer is idle: commit now.
    func holdForFlush() -> Bool {
        // Announce first, then look: the thread clears `flushing` first, then looks at the
        // announcement, so one of the two sees the other (no wake-up is lost).
        turnWaits.store(true, ordering: .sequentiallyConsistent)
        if flushing.load(ordering: .sequentiallyConsistent) { return true }
        turnWaits.store(false, ordering: .sequentiallyConsistent)
        return false
    }

    /// Flushes and releases what is queued, then stops the thread.
    func close() {
        queue.close()
        if started.exchange(false, ordering: .acquiringAndReleasing) { exited.wait() }
    }

    /// `fdatasync` of the log; the failure, sticky, when it or an earlier flush failed.
    private func flush(_ descriptor: Int32, walPath: String) -> StoreError? {
        if let failed = failure.withLock({ $0 }) { return failed }
        var result = fdatasync(descriptor)
        while result != 0 && errno == EINTR { result = fdatasync(descriptor) }
        var reason: String?
        if result != 0 {
            reason = "flushing the write-ahead log failed: \(String(cString: strerror(errno)))"
        } else {
            // The descriptor must still be the log SQLite writes: removed, it would flush nothing.
            var status = stat()
            if fstat(descriptor, &status) == 0, status.st_nlink == 0 {
                reason = "the write-ahead log \(walPath) was removed while the service wrote to it"
            }
        }
        guard let reason else { return nil }
        let failed = StoreError.unavailable(reason: reason + "; writes are refused until navprefs restarts")
        failure.withLock { $0 = failed }
        return failed
    }
}
