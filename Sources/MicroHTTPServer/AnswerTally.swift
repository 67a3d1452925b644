import Glibc
import Synchronization

/// Which thread made the answers: the event loop's (while the handler ran), or another. What
/// ``HTTPServer/answersMadeOffTheLoop`` reports, so tests and operators can see which requests
/// crossed a thread.
package final class AnswerTally: Sendable {
    /// `pthread_self()` of the event loop, once it runs.
    let loopThread = Atomic<UInt>(0)
    let offLoop = Atomic<Int>(0)

    /// Whether the calling thread is the event loop's.
    var onLoopThread: Bool { UInt(pthread_self()) == loopThread.load(ordering: .relaxed) }

    /// Counts an answer about to be made on this thread; whether it is another than the loop's.
    func answeredOffTheLoop() -> Bool {
        guard UInt(pthread_self()) != loopThread.load(ordering: .relaxed) else { return false }
        offLoop.add(1, ordering: .relaxed)
        return true
    }
}
