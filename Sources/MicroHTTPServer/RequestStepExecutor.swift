/// Carries out the steps ``RequestPhases`` decides, for either transport: the socket server
/// (`MHD/ServerCore+SocketSteps.swift`) and the in-memory transport of the tests
/// (`MicroHTTPServerTesting`). The decisions (what to refuse, when to run admission and the
/// handler, what happens while the server closes) are made here once, so a behaviour proven
/// over the in-memory transport is the socket server's; each transport only does the few
/// things it does its own way (``StepTransport``).
package struct RequestStepExecutor<Transport: StepTransport> {
    package let transport: Transport

    package init(_ transport: Transport) { self.transport = transport }

    /// The header fields are in, with what the transport's own checks found to refuse
    /// (``RequestPhases/transportRefusal``): the framing is checked, then admission decides.
    package func headersArrived(_ head: HTTPRequestHead, refusal: HTTPRejection?, for exchange: Transport.Exchange) -> Transport.Outcome {
        let step = exchange.phases.headersArrived(head, refusal: refusal)
        guard case .proceed = step else { return execute(step, for: exchange) }
        return execute(exchange.phases.admitted(transport.handler.admit(head), reserve: { transport.reserveBody($0, for: exchange) }),
                       for: exchange)
    }

    /// A piece of the body arrived.
    package func bodyArrived(_ piece: some Collection<UInt8>, for exchange: Transport.Exchange) -> Transport.Outcome {
        execute(exchange.phases.bodyArrived(piece, reserve: { transport.reserveBody($0, for: exchange) }), for: exchange)
    }

    /// The body is complete (or there was none); the transport released its share of the body
    /// budget already.
    package func bodyComplete(for exchange: Transport.Exchange) -> Transport.Outcome {
        execute(exchange.phases.bodyComplete(), for: exchange)
    }

    /// Carries out `step` for `exchange`, and the steps it leads to, until the transport reads
    /// on, answers, cuts, or waits for a decision or an answer to come later.
    package func execute(_ step: RequestPhases.Step, for exchange: Transport.Exchange) -> Transport.Outcome {
        var step = step
        while true {
            if transport.isClosing {
                // Nothing new is handed off while the server closes: a handed-off request could
                // leave a connection suspended when the daemon stops.
                switch step {
                case .handle, .awaitAdmission:
                    return transport.queue(transport.handler.response(for: .shuttingDown, head: exchange.headForRefusal), for: exchange)
                case .proceed, .refuse, .answer, .abandon:
                    break
                }
            }
            switch step {
            case .proceed:
                return transport.readOn(exchange)
            case .refuse(let rejection):
                return transport.queue(transport.handler.response(for: rejection, head: exchange.headForRefusal), for: exchange)
            case .answer(let response):
                return transport.queue(response, for: exchange)
            case .abandon:
                return transport.cut(exchange)
            case .awaitAdmission(let decide):
                let shot = OneShot<HTTPAdmission>()
                exchange.awaitedAdmission = shot
                decide(HTTPAdmissionResponder(shot: shot))
                guard let decision = shot.takeOrSuspend(suspend: { transport.suspend(exchange) },
                                                        wake: transport.wakeUp(exchange))
                else { return transport.waiting(exchange) }
                exchange.awaitedAdmission = nil
                step = exchange.phases.admitted(decision, reserve: { transport.reserveBody($0, for: exchange) })
            case .handle(let request):
                let shot = OneShot<HTTPResponse>()
                exchange.awaitedResponse = shot
                transport.handler.handle(request, responder: transport.responder(for: shot, exchange: exchange))
                guard let response = shot.takeOrSuspend(suspend: { transport.suspend(exchange) },
                                                        wake: transport.wakeUp(exchange))
                else {
                    exchange.phases.handlerWillAnswerLater()
                    return transport.waiting(exchange)
                }
                exchange.awaitedResponse = nil
                return transport.queue(response, for: exchange)
            }
        }
    }

    /// Admission's decision, once it came for a waiting exchange: the steps it leads to; `nil`
    /// while it has not come.
    package func admissionCame(for exchange: Transport.Exchange) -> Transport.Outcome? {
        guard let decision = exchange.awaitedAdmission?.take() else { return nil }
        exchange.awaitedAdmission = nil
        transport.stoppedWaiting(exchange)
        return execute(exchange.phases.admitted(decision, reserve: { transport.reserveBody($0, for: exchange) }), for: exchange)
    }

    /// The handler's answer, once it came for a waiting exchange: queued; `nil` while it has
    /// not come.
    package func answerCame(for exchange: Transport.Exchange) -> Transport.Outcome? {
        guard let response = exchange.awaitedResponse?.take() else { return nil }
        exchange.awaitedResponse = nil
        transport.stoppedWaiting(exchange)
        return transport.queue(response, for: exchange)
    }
}

/// One request as the executor sees it: its phase machine, and the one-shots through which an
/// admission decided later or a handler answering later hands its value back. The socket server
/// keeps these in ``RequestContext``, the in-memory transport in an exchange of its own.
package protocol RequestExchange: AnyObject {
    var phases: RequestPhases { get set }
    /// The one-shot of an admission decided later, while it is out.
    var awaitedAdmission: OneShot<HTTPAdmission>? { get set }
    /// The one-shot of the handler's answer, while it is out.
    var awaitedResponse: OneShot<HTTPResponse>? { get set }
    /// The head to answer a refusal for: the one received, or what is known before it.
    var headForRefusal: HTTPRequestHead { get }
}

/// What each transport does its own way when the executor (``RequestStepExecutor``) says so:
/// read on, queue an answer, cut, suspend while a value is awaited and resume once it came.
package protocol StepTransport {
    associatedtype Exchange: RequestExchange
    /// What a call of the executor hands back: libmicrohttpd's `MHD_Result` on the socket, what
    /// to do next in memory.
    associatedtype Outcome

    var handler: any HTTPHandler { get }
    /// Whether the server is closing: a request that reaches its handler or admission from now
    /// on is answered 503 (``HTTPRejection/shuttingDown``).
    var isClosing: Bool { get }
    /// Takes `bytes` of the server-wide body budget (``BodyBudget``) for `exchange`; whether it could.
    func reserveBody(_ bytes: Int, for exchange: Exchange) -> Bool
    /// Reads on: the next piece of the body, or its end.
    func readOn(_ exchange: Exchange) -> Outcome
    /// Answers `exchange` with `response`.
    func queue(_ response: HTTPResponse, for exchange: Exchange) -> Outcome
    /// Closes the connection without an answer.
    func cut(_ exchange: Exchange) -> Outcome
    /// Suspends `exchange` until its value comes (under the one-shot's lock, so the wake-up
    /// cannot come first).
    func suspend(_ exchange: Exchange)
    /// What the producer of the awaited value calls once it handed it over, from any thread.
    func wakeUp(_ exchange: Exchange) -> @Sendable () -> Void
    /// What the executor hands back while `exchange` waits, suspended.
    func waiting(_ exchange: Exchange) -> Outcome
    /// `exchange` got its awaited value and waits no more.
    func stoppedWaiting(_ exchange: Exchange)
    /// The responder the handler answers `exchange` through.
    func responder(for shot: OneShot<HTTPResponse>, exchange: Exchange) -> HTTPResponder
}
