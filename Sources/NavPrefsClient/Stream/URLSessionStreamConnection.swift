#if !os(Linux)
    import Foundation
    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// One HTTP request whose answer is read as it arrives, as an `AsyncStream` of chunks, through
    /// a `URLSessionDataDelegate` on a session of its own, which this object ends with
    /// ``cancel()`` or when the answer ends. (On Linux the library reads the stream itself:
    /// `Stream/SocketStreamConnection.swift`.)
    final class StreamConnection: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        // Safety (`@unchecked Sendable`): `continuation` is immutable and thread-safe; `task` and
        // `session` are guarded by their locks.
        let chunks: AsyncStream<StreamChunk>
        private let continuation: AsyncStream<StreamChunk>.Continuation
        private let task = Locked<URLSessionDataTask?>(nil)
        private let session = Locked<URLSession?>(nil)
        private let configuration: URLSessionConfiguration

        init(http: HTTPClient) {
            (chunks, continuation) = AsyncStream.makeStream(of: StreamChunk.self, bufferingPolicy: .unbounded)
            configuration = http.session.configuration
            super.init()
        }

        /// Sends `request` on a session of its own.
        func start(_ request: WireRequest) {
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1  // chunks in order
            let session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
            let task = session.dataTask(with: request.urlRequest)
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
#endif
