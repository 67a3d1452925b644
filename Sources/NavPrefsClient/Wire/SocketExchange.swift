#if os(Linux)
    import Foundation

    /// One request and its whole answer over a connection of its own (`Connection: close`), on a
    /// thread of its own: the calling task waits without holding a thread of the cooperative pool,
    /// and cancelling it interrupts the connection at once.
    ///
    /// A connection per request is what the writes need anyway: a request that never rides on a
    /// connection another request left open is never sent again behind the library's back, so
    /// the library's own retry, with the same idempotency key, is the only one.
    enum SocketExchange {
        static func send(_ request: WireRequest, tls: @escaping @Sendable () throws(NavPrefsError) -> TLSContext)
            async throws(NavPrefsError) -> HTTPAnswer {
            let connection = Locked<(channel: SocketChannel?, cancelled: Bool)>((nil, false))
            let result: Result<HTTPAnswer, NavPrefsError> = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let thread = Thread {
                        continuation.resume(returning: Result { () throws(NavPrefsError) -> HTTPAnswer in
                            try exchange(request, tls: tls, connection: connection)
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

        /// The blocking part, on the request's own thread.
        private static func exchange(_ request: WireRequest, tls: () throws(NavPrefsError) -> TLSContext,
                                     connection: Locked<(channel: SocketChannel?, cancelled: Bool)>) throws(NavPrefsError) -> HTTPAnswer {
            let channel = try SocketChannel(url: request.url, timeout: min(request.timeout, .seconds(10)), tls: try tls())
            defer { channel.close() }
            guard connection.withLock({ state in
                state.channel = channel
                return !state.cancelled
            }) else { throw .cancelled }
            channel.limitWaits(to: request.timeout)
            var wire = request
            wire.headers.append(("Connection", "close"))
            try channel.write(wire.serialized(host: hostHeader(request.url)))
            var parser = ResponseParser()
            var status = 0
            var headers: [String: String] = [:]
            var body = Data()
            while true {
                let bytes = try channel.read()
                let outputs: [ResponseParser.Output]
                do {
                    outputs = try bytes.isEmpty ? [] : parser.feed(bytes)
                } catch {
                    throw .transport("an answer that is not HTTP/1.1: \(error)")
                }
                for output in outputs {
                    switch output {
                    case .head(let code, let fields):
                        status = code
                        headers = fields
                    case .body(let data): body.append(data)
                    case .end: return HTTPAnswer(status: status, headers: headers, body: body)
                    }
                }
                if bytes.isEmpty {
                    guard status != 0, parser.completeAtClose else { throw .transport("the connection closed before the answer was complete") }
                    return HTTPAnswer(status: status, headers: headers, body: body)
                }
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
