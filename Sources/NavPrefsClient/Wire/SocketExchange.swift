#if os(Linux)
    import Foundation

    /// One request and its whole answer, on a thread of its own: the calling task waits without
    /// holding a thread of the cooperative pool, and cancelling it interrupts the connection at
    /// once. The connection is one the pool kept (keep-alive) or a new one.
    ///
    /// A request is only ever sent again by this type when a kept connection turned out closed
    /// before any byte of the answer came, and only a read or a write with an idempotency key:
    /// the server applies such a write once however often it arrives. Every other failure is
    /// the caller's to retry (the outbox does, with the same key).
    enum SocketExchange {
        static func send(_ request: WireRequest, pool: ConnectionPool, tls: @escaping @Sendable () throws(NavPrefsError) -> TLSContext)
            async throws(NavPrefsError) -> HTTPAnswer {
            let connection = Locked<(channel: SocketChannel?, cancelled: Bool)>((nil, false))
            let result: Result<HTTPAnswer, NavPrefsError> = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let thread = Thread {
                        SocketChannel.blockBrokenPipeSignal()
                        continuation.resume(returning: Result { () throws(NavPrefsError) -> HTTPAnswer in
                            try exchange(request, pool: pool, tls: tls, connection: connection)
                        })
                    }
                    thread.start()
                }
            } onCancel: {
                connection.withLock { state in
                    state.cancelled = true
                    state.channel?.interrupt()
                }
            }
            if Task.isCancelled, case .failure = result { throw .cancelled }
            return try result.get()
        }

        /// Why an exchange failed, and whether any of the answer had arrived.
        private struct Failure: Error {
            let error: NavPrefsError
            let answered: Bool
        }

        /// The blocking part, on the request's own thread.
        private static func exchange(_ request: WireRequest, pool: ConnectionPool, tls: () throws(NavPrefsError) -> TLSContext,
                                     connection: Locked<(channel: SocketChannel?, cancelled: Bool)>) throws(NavPrefsError) -> HTTPAnswer {
            let origin = "\(request.url.scheme ?? "http")://\(hostHeader(request.url))"
            let resendable = request.method == "GET" || request.headers.contains { $0.0.lowercased() == "idempotency-key" }
            if let kept = pool.take(origin) {
                do {
                    return try exchange(request, on: kept, origin: origin, pool: pool, connection: connection)
                } catch {
                    guard !error.answered, resendable, !connection.withLock({ $0.cancelled }) else { throw error.error }
                }
            }
            let channel = try SocketChannel(url: request.url, timeout: min(request.timeout, .seconds(10)), tls: try tls())
            do {
                return try exchange(request, on: channel, origin: origin, pool: pool, connection: connection)
            } catch {
                throw error.error
            }
        }

        /// Sends `request` on `channel` and reads its answer; gives the channel back to the pool
        /// when it can carry another request, closes it otherwise.
        private static func exchange(_ request: WireRequest, on channel: SocketChannel, origin: String, pool: ConnectionPool,
                                     connection: Locked<(channel: SocketChannel?, cancelled: Bool)>) throws(Failure) -> HTTPAnswer {
            var keep = false
            defer { if keep { pool.give(channel, origin) } else { channel.close() } }
            guard connection.withLock({ state in
                state.channel = channel
                return !state.cancelled
            }) else { throw Failure(error: .cancelled, answered: false) }
            channel.limitWaits(to: request.timeout)
            var parser = ResponseParser()
            var status = 0
            var headers: [String: String] = [:]
            var body = Data()
            var answered = false
            do {
                try channel.write(request.serialized(host: hostHeader(request.url)))
                while true {
                    let bytes = try channel.read()
                    if bytes.isEmpty {
                        guard status != 0, parser.completeAtClose else {
                            throw NavPrefsError.transport("the connection closed before the answer was complete")
                        }
                        return HTTPAnswer(status: status, headers: headers, body: body)
                    }
                    answered = true
                    for output in try parser.feed(bytes) {
                        switch output {
                        case .head(let code, let fields):
                            status = code
                            headers = fields
                        case .body(let data): body.append(data)
                        case .end:
                            keep = headers["connection"]?.lowercased().contains("close") != true
                            return HTTPAnswer(status: status, headers: headers, body: body)
                        }
                    }
                }
            } catch let error as NavPrefsError {
                throw Failure(error: error, answered: answered)
            } catch {
                throw Failure(error: .transport("an answer that is not HTTP/1.1: \(error)"), answered: answered)
            }
        }

        /// `Host`: the name (an IPv6 address in brackets) and the port unless it is the scheme's.
        static func hostHeader(_ url: URL) -> String {
            let host = url.host ?? ""
            let name = host.contains(":") ? "[\(host)]" : host
            let secure = url.scheme?.lowercased() == "https"
            guard let port = url.port, port != (secure ? 443 : 80) else { return name }
            return "\(name):\(port)"
        }
    }
#endif
