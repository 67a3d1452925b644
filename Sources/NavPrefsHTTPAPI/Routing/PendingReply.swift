import MicroHTTPServer
import NavPrefsStore
import Synchronization

/// Where a store call's result goes (``APIResult/pending(_:)``): the store's thread hands the
/// result over, and the answer is rendered and finished on the event loop (``LoopRenderer``).
///
/// A route passes its value and how to render it, never a rendered answer, so the store's
/// thread does no HTTP work; only answers that grow with a profile's size are rendered where
/// they were made (``rendered(_:)``, ``render(_:on:with:)``).
public struct PendingReply: Sendable {
    let renderer: LoopRenderer
    /// Finishes a rendered answer (the response steps, the metrics) and hands it to the
    /// transport; called on the event loop.
    let finish: @Sendable (Result<HTTPResponse, StoreError>) -> Void

    /// The store's `result`, rendered by `answer` on the event loop.
    func render<Value: Sendable>(_ result: Result<Value, StoreError>,
                                        with answer: @escaping @Sendable (Value) -> HTTPResponse) {
        renderer.submit { [finish] in finish(result.map(answer)) }
    }

    /// An answer already rendered (a large read's, rendered by the reader below the loop's
    /// priority, or one from memory), finished on the event loop.
    func rendered(_ result: Result<HTTPResponse, StoreError>) {
        if !renderer.isLoopThread { renderer.renderedElsewhere.add(1, ordering: .relaxed) }
        renderer.submit { [finish] in finish(result) }
    }

    /// The store's `result`, rendered by `answer` on `lane` (an answer as large as a whole
    /// profile), finished on the event loop.
    func render<Value: Sendable>(_ result: Result<Value, StoreError>, on lane: LargeWorkLane,
                                 with answer: @escaping @Sendable (Value) -> HTTPResponse) {
        lane.submit { [self] in rendered(result.map(answer)) }
    }
}
