import Synchronization

/// Ending the work a stopping server still holds: streams finished or aborted, requests that
/// wait for their handler or admission answered 503 (``HTTPServer/shutdown(gracePeriod:)``,
/// ``EventLoop``'s end). From any thread.
extension ServerCore {
    /// Ends every open stream (after what is queued) so clients reconnect elsewhere.
    func finishStreams() {
        let streams = registry.withLock { Array($0.streams.values) }
        for stream in streams { stream.finish() }
    }

    /// Answers every request still waiting for its handler or admission with 503, and aborts
    /// every stream. From any thread.
    func abandonOutstandingWork() {
        let (waiting, streams) = registry.withLock { (Array($0.waiting.values), Array($0.streams.values)) }
        for request in waiting {
            let refusal = handler.response(for: .shuttingDown, head: request.head)
            _ = request.response?.fulfil(refusal)
            _ = request.admission?.fulfil(.answer(refusal))
        }
        for stream in streams { stream.abort(.serverShutdown) }
        abandoningSocketAnswers.store(true, ordering: .relaxed)
        waker.wake()
    }
}
