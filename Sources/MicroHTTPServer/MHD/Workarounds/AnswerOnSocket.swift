import CMicroHTTPD
import Synchronization

/// Workaround ``MHDWorkarounds/answerHalfClosed``: an answer made while its connection waited,
/// suspended, reaches a client that already shut down its sending side.
///
/// libmicrohttpd 0.9.75 resumes such a connection by reading it first (the read interest it had
/// before the request was complete is never updated while it is suspended): the read sees the
/// end of the client's stream, and MHD closes the connection without sending the answer that was
/// ready (a write committed, the client got EOF; 8 of 30 such writes, and 39 of 40 event streams,
/// in issue 31). So every request answered later is resumed by the event loop itself, just before
/// MHD runs (``ServerCore/resumeAnswered()``): when its client has finished sending and nothing
/// of it is left to read, the server writes the answer to the socket itself, with
/// `Connection: close`, keeping the connection suspended until the last byte went out (the loop
/// watches the socket for room), then resumes it for MHD to close. A stream's answer is its head
/// and what the stream holds when it starts (the replay, or the position), then its end: a client
/// that sends nothing more cannot be told apart from one that left. What is left is a client
/// whose end arrives between that look and MHD's read, in the same turn of the loop.
final class AnswerOnSocket: @unchecked Sendable {
    // Safety: `sent` is read and written on the event-loop thread only; the rest is immutable.
    let context: RequestContext
    let socket: Int32
    let token: Int
    private let bytes: [UInt8]
    private var sent = 0
    /// Past it, a client that takes no more bytes is cut (``ServerConfiguration/bodyTimeout``).
    let deadline: ContinuousClock.Instant

    init(context: RequestContext, socket: Int32, token: Int, bytes: [UInt8], deadline: ContinuousClock.Instant) {
        self.context = context
        self.socket = socket
        self.token = token
        self.bytes = bytes
        self.deadline = deadline
    }

    enum Progress {
        case done
        case waitingForRoom
        case failed
    }

    /// Sends what the socket takes now, without blocking.
    func send() -> Progress {
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { raw in
                cmhd_send_or_would_block(socket, raw.baseAddress.map { $0 + sent }, raw.count - sent)
            }
            if count < 0 { return .failed }
            if count == 0 { return .waitingForRoom }
            sent += count
        }
        return .done
    }
}

extension ServerCore {
    /// On the event-loop thread, before MHD runs: resumes the connections whose answers came,
    /// or, for a client that finished sending, writes the answer to the socket first.
    func resumeAnswered() {
        // The answers that came (``LoopMailbox``), and whether the server is writing any answer itself.
        let answered = mailbox.takeAnswered()
        let writing = registry.withLock { !$0.answersOnSockets.isEmpty }
        var queued: [ObjectIdentifier] = []
        for context in answered {
            if workarounds.contains(.answerHalfClosed), context.phases.phase == .waiting,
               let peer = PeerInfo.of(context.connection.pointer), peer.socket >= 0,
               cmhd_peer_finished_sending(peer.socket) != 0, let response = context.awaitedResponse?.take() {
                context.awaitedResponse = nil
                answerOnSocket(response, context: context, socket: peer.socket)
                continue
            }
            // Queued on the connection while it is still suspended (libmicrohttpd 0.9.75 takes a
            // response there; it then sends it once resumed, without calling the handler again):
            // no second call of the access handler per deferred answer. A stream waits for that
            // call, which starts it (its `start` runs with the connection resumed).
            if context.phases.phase == .waiting, let response = context.awaitedResponse?.take(if: { !$0.body.isStream }) {
                context.awaitedResponse = nil
                queued.append(ObjectIdentifier(context))
                if queue(response, for: context) == .NO { context.cutOff = true }
            }
            context.connection.resumeOnLoop()
        }
        if !queued.isEmpty {
            registry.withLock { registry in for id in queued { registry.waiting.removeValue(forKey: id) } }
        }
        if writing { abandonStalledSocketAnswers() }
    }

    /// Writes `response` to the connection itself, which stays suspended until it went out.
    private func answerOnSocket(_ response: HTTPResponse, context: RequestContext, socket: Int32) {
        context.phases.answered()
        context.cutOff = true
        bodyBudget.release(context)
        PeerInfo.of(context.connection.pointer)?.phase = .busy
        let body: HTTPResponse
        if case .stream(let start) = response.body, !context.isHead {
            body = HTTPResponse(status: response.status, headers: response.headers, bytes: StreamOpening.bytes(of: start))
        } else {
            body = response
            if case .stream = response.body {} else { context.answer = AnswerNote(response) }
        }
        let delivery = AnswerOnSocket(context: context, socket: socket, token: makeID(),
                                      bytes: MHDResponse.serialized(body, headOnly: context.isHead),
                                      deadline: .now + configuration.bodyTimeout)
        switch delivery.send() {
        case .done: finish(delivery, delivered: true)
        case .failed: finish(delivery, delivered: false)
        case .waitingForRoom:
            registry.withLock { registry in
                registry.watched[delivery.token] = .answer(delivery)
                registry.answersOnSockets[delivery.token] = delivery
            }
            if !socketWatch.watchWritable(socket, token: delivery.token) { finish(delivery, delivered: false) }
        }
    }

    /// The socket has room (or hung up): sends more of the answer.
    func continueAnswer(_ delivery: AnswerOnSocket) {
        switch delivery.send() {
        case .done: finish(delivery, delivered: true)
        case .failed: finish(delivery, delivered: false)
        case .waitingForRoom: break
        }
    }

    /// Ends a delivery: the socket shut down both ways, then the connection resumed, which MHD
    /// then closes (it reads the end of the stream, or the shut socket).
    private func finish(_ delivery: AnswerOnSocket, delivered: Bool) {
        let watched = registry.withLock { registry in
            registry.waiting.removeValue(forKey: ObjectIdentifier(delivery.context))
            registry.answersOnSockets[delivery.token] = nil
            return registry.watched.removeValue(forKey: delivery.token)
        }
        if watched != nil { socketWatch.unwatch(delivery.socket) }
        delivery.context.answerDelivered = delivered
        cmhd_shutdown_socket(delivery.socket)
        delivery.context.connection.resumeOnLoop()
    }

    /// Cuts the deliveries whose client took no bytes until their deadline, or all of them once
    /// the server gives up on outstanding work.
    private func abandonStalledSocketAnswers() {
        let abandonAll = abandoningSocketAnswers.load(ordering: .relaxed)
        let now = ContinuousClock.now
        let stalled: [AnswerOnSocket] = registry.withLock { registry in
            guard !registry.answersOnSockets.isEmpty else { return [] }
            return registry.answersOnSockets.values.filter { abandonAll || $0.deadline < now }
        }
        for delivery in stalled { finish(delivery, delivered: false) }
    }
}

/// What a stream holds when it starts: its `start` run on a stream that only collects, then
/// ended. For a client that will not read on (``AnswerOnSocket``).
enum StreamOpening {
    static func bytes(of start: @Sendable (ResponseStream) -> Void) -> [UInt8] {
        let stream = ResponseStream(connection: Collecting(), maxBufferedBytes: Int.max, id: 0)
        start(stream)
        stream.finish()
        var collected: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        reading: while true {
            let result = buffer.withUnsafeMutableBytes { stream.read(into: $0) }
            switch result {
            case .bytes(let count): collected += buffer.prefix(count)
            case .endOfStream, .abort, .suspended: break reading
            }
        }
        stream.terminated()
        return collected
    }

    /// A connection that is never suspended: reads happen right after the writes.
    private struct Collecting: StreamConnection {
        func suspend() {}
        func resume() {}
    }
}
