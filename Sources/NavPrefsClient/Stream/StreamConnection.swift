import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One HTTP request whose answer is read as it arrives, as an `AsyncStream` of chunks.
///
/// `URLSession.bytes(for:)` does not exist in swift-corelibs-foundation (Linux), so the answer
/// comes through a `URLSessionDataDelegate` on a session of its own, which this object ends
/// with ``cancel()`` or when the answer ends.
final class StreamConnection: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// What the connection delivers, in order: the head, body chunks, then the end.
    enum Chunk: Sendable {
        case head(status: Int, contentType: String?)
        case data(Data)
        /// The answer ended: `nil` when the server closed it, else why it broke.
        case end(String?)
    }

    // Safety (`@unchecked Sendable`): `continuation` is immutable and thread-safe; `task` and
    // `session` are set once, in `start`, before any delegate call can happen.
    let chunks: AsyncStream<Chunk>
    private let continuation: AsyncStream<Chunk>.Continuation
    private let task = Locked<URLSessionDataTask?>(nil)
    private let session = Locked<URLSession?>(nil)

    override init() {
        (chunks, continuation) = AsyncStream.makeStream(of: Chunk.self, bufferingPolicy: .unbounded)
        super.init()
    }

    /// Sends `request` on a session of its own configured like `configuration`.
    func start(_ request: URLRequest, configuration: URLSessionConfiguration) {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1  // chunks in order
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
        let task = session.dataTask(with: request)
        self.session.withLock { $0 = session }
        self.task.withLock { $0 = task }
        task.resume()
    }

    /// Ends the request now (the stream then ends with `.end`).
    func cancel() {
        task.withLock { $0 }?.cancel()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        let http = response as? HTTPURLResponse
        continuation.yield(.head(status: http?.statusCode ?? 0, contentType: http?.value(forHTTPHeaderField: "Content-Type")))
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        continuation.yield(.data(data))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        continuation.yield(.end(error.map { String(describing: $0) }))
        continuation.finish()
        // The session holds this delegate until it is invalidated.
        session.finishTasksAndInvalidate()
    }
}
