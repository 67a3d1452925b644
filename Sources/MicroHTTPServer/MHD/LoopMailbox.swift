import Synchronization

/// What other threads hand the event loop between its runs: requests whose answer (or
/// admission) came while their connection waited, suspended, and streams to cut.
///
/// An object of its own, which the producers' closures hold strongly, rather than the
/// ``ServerCore`` held weakly: a weak reference gives an object a side table, and from then on
/// every retain and release of the core (several per request) took the Swift runtime's slow
/// path for reference counts kept in a side table (it showed in profiles of a GET).
///
/// Safety (`@unchecked Sendable`): `answeredOnLoop` is read and written on the event-loop thread
/// only; the lists are behind their locks.
final class LoopMailbox: @unchecked Sendable {
    private let answered = Mutex<[RequestContext]>([])
    private let cuts = Mutex<[Int]>([])
    private let waker: LoopWaker
    private let tally: AnswerTally
    private let cutsStalledStreams: Bool
    /// A request was answered on the event-loop thread itself (at the end of a turn): the
    /// loop's next wait returns at once instead of the loop waking itself through the eventfd.
    var answeredOnLoop = false

    init(waker: LoopWaker, tally: AnswerTally, cutsStalledStreams: Bool) {
        self.waker = waker
        self.tally = tally
        self.cutsStalledStreams = cutsStalledStreams
    }

    /// A waiting request's answer or admission was handed over (from any thread): the loop
    /// resumes its connection before its next run of MHD (``ServerCore/resumeAnswered()``).
    func answerReady(_ context: RequestContext) {
        answered.withLock { $0.append(context) }
        if tally.onLoopThread { answeredOnLoop = true } else { waker.wake() }
    }

    /// The requests answered since the last look (event-loop thread).
    func takeAnswered() -> [RequestContext] {
        answered.withLock { answered in
            guard !answered.isEmpty else { return [] }
            defer { answered.removeAll(keepingCapacity: true) }
            return answered
        }
    }

    /// A stream aborted while libmicrohttpd was sending (workaround
    /// ``MHDWorkarounds/cutStalledStreams``): the loop shuts its socket down.
    func requestCut(of stream: Int) {
        guard cutsStalledStreams else { return }
        cuts.withLock { $0.append(stream) }
        waker.wake()
    }

    /// The oldest `limit` streams to cut, and whether more wait (event-loop thread).
    func takeCuts(atMost limit: Int) -> (ids: [Int], more: Bool) {
        cuts.withLock { cuts in
            guard !cuts.isEmpty else { return ([], false) }
            let taken = min(cuts.count, limit)
            defer { cuts.removeFirst(taken) }
            return (Array(cuts.prefix(taken)), cuts.count > taken)
        }
    }
}
