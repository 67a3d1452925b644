#if os(Linux)
    import Foundation

    /// One HTTP request whose answer is read as it arrives, as an `AsyncStream` of chunks, on a
    /// thread of its own that blocks in `recv` (or `SSL_read`) between events: an idle stream
    /// costs no CPU at all (the client's tests measure it), where swift-corelibs-foundation's
    /// URLSession kept most of a core busy.
    final class StreamConnection: Sendable {
        let chunks: AsyncStream<StreamChunk>
        private let continuation: AsyncStream<StreamChunk>.Continuation
        private let connection = Locked<(channel: SocketChannel?, cancelled: Bool)>((nil, false))
        private let tls: @Sendable () throws(NavPrefsError) -> TLSContext

        init(http: HTTPClient) {
            (chunks, continuation) = AsyncStream.makeStream(of: StreamChunk.self, bufferingPolicy: .unbounded)
            tls = { [http] () throws(NavPrefsError) in try http.tlsContext() }
        }

        /// Connects and sends `request` on the connection's own thread.
        func start(_ request: WireRequest) {
            let thread = Thread { [self] in
                SocketChannel.blockBrokenPipeSignal()
                let reason = run(request)
                continuation.yield(.end(reason))
                continuation.finish()
            }
            thread.start()
        }

        /// Ends the request now (the stream then ends with `.end`).
        func cancel() {
            connection.withLock { state in
                state.cancelled = true
                state.channel?.interrupt()
            }
        }

        /// Reads the answer until it ends; why it ended (`nil`: the server closed it).
        private func run(_ request: WireRequest) -> String? {
            let channel: SocketChannel
            do {
                channel = try SocketChannel(url: request.url, timeout: min(request.timeout, .seconds(10)), tls: try tls())
            } catch {
                return error.transportReason
            }
            defer { channel.close() }
            guard connection.withLock({ state in
                state.channel = channel
                return !state.cancelled
            }) else { return "cancelled" }
            var parser = ResponseParser()
            do {
                try channel.write(request.serialized(host: SocketExchange.hostHeader(request.url)))
                while true {
                    let bytes = try channel.read()
                    if bytes.isEmpty { return connection.withLock({ $0.cancelled }) ? "cancelled" : nil }
                    for output in try parser.feed(bytes) {
                        switch output {
                        case .head(let status, let headers): continuation.yield(.head(status: status, contentType: headers["content-type"]))
                        case .body(let data): continuation.yield(.data(data))
                        case .end: return nil
                        }
                    }
                }
            } catch let error as NavPrefsError {
                return connection.withLock({ $0.cancelled }) ? "cancelled" : error.transportReason
            } catch {
                return "an answer that is not HTTP/1.1: \(error)"
            }
        }
    }
#endif
