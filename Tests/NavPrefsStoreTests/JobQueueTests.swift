import Dispatch
import NavPrefsStore
import Synchronization
import Testing

/// The one hand-off queue between threads (``JobQueue``): the writer's, the syncer's, the pool's,
/// the readers' and every event-feed subscription's. What its consumers rely on: no job lost or
/// reordered, however the wake-ups fall; closing lets the queued ones finish, discarding does not.
@Suite("JobQueue: jobs reach a waiting worker in order, none lost; close and discard")
struct JobQueueTests {
    /// Runs `body` on a thread of its own; `wait` returns `false` if it has not ended within 10 s.
    final class Worker: Sendable {
        private let ended = DispatchSemaphore(value: 0)
        init(_ body: @escaping @Sendable () -> Void) {
            startNamedThread("test-worker") { [ended] in
                body()
                ended.signal()
            }
        }
        func wait() -> Bool { ended.wait(timeout: .now() + 10) == .success }
    }

    @Test("batches submitted while the worker waits or works all arrive, in order (a wake-up only when the queue was empty loses none)", arguments: [1, 7, 64])
    func batchesInOrder(batchSize: Int) {
        let queue = JobQueue<Int>()
        let total = 20_000
        let received = Mutex<[Int]>([])
        let worker = Worker {
            while let taken = queue.takeAll() {
                received.withLock { $0 += taken }
            }
        }
        var next = 0
        while next < total {
            let batch = Array(next..<min(total, next + batchSize))
            #expect(queue.submit(contentsOf: batch))
            next += batch.count
        }
        queue.close()
        #expect(worker.wait(), "the worker did not end: a wake-up was lost or close did not wake it")
        #expect(received.withLock { $0 } == Array(0..<total))
    }

    @Test("single submits reach two workers, each job once (the signal after unlocking wakes one of them)")
    func singleSubmitsTwoWorkers() {
        let queue = JobQueue<Int>()
        let total = 10_000
        let received = Mutex<[Int]>([])
        let workers = (0..<2).map { _ in
            Worker {
                while let taken = queue.take(upTo: 3) { received.withLock { $0 += taken } }
            }
        }
        for job in 0..<total { #expect(queue.submit(job)) }
        queue.close()
        for worker in workers { #expect(worker.wait()) }
        #expect(received.withLock { $0 }.sorted() == Array(0..<total))
    }

    @Test("close: what is queued is still taken, then nil; submits are refused")
    func closeFinishesQueued() {
        let queue = JobQueue<Int>()
        #expect(queue.submit(contentsOf: [1, 2, 3]))
        queue.close()
        #expect(queue.isClosed)
        #expect(!queue.submit(4))
        #expect(!queue.submit(contentsOf: [5]))
        #expect(queue.takeAll() == [1, 2, 3])
        #expect(queue.takeAll() == nil)
    }

    @Test("closeDiscarding: what is queued is dropped and a waiting worker gets nil at once")
    func closeDiscardingDrops() {
        let queue = JobQueue<Int>()
        #expect(queue.submit(contentsOf: [1, 2]))
        #expect(queue.takeAllQueued() == [1, 2])
        #expect(queue.takeAllQueued().isEmpty)
        let result = Mutex<[Int]?>([0])
        let worker = Worker { result.withLock { $0 = queue.takeAll() } }
        queue.closeDiscarding()
        #expect(worker.wait())
        #expect(result.withLock { $0 } == nil)
        #expect(!queue.submit(3))
        #expect(queue.takeAllQueued().isEmpty)
    }
}
