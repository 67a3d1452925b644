/// Where one request is between its request line and its answer, and what the server does next:
/// the request-phase machine, as a value with no socket, pointer or thread in it.
///
/// The socket server (`MHD/ServerCore+RequestCallbacks.swift`) feeds it what libmicrohttpd
/// reports; the in-memory transport (`InMemoryHTTPTransport`, in `MicroHTTPServerTesting`) feeds
/// it a request built in a test. Both carry out the ``Step`` it answers through one executor
/// (``RequestStepExecutor``), so they refuse, admit, read and answer alike, and the rules live
/// here, tested without sockets (`RequestPhasesTests`).
///
/// The phases, in order (a request may leave the path at any arrow with an answer):
///
/// ```
/// awaitingHeaders ─▶ (admitting) ─▶ receiving ─▶ handling ─▶ (waiting) ─▶ answered
/// ```
///
/// `admitting` and `waiting` are the two phases in which the connection is suspended: an
/// admission decided later (``HTTPAdmission/later(_:)``), and a handler that answers later
/// through its ``HTTPResponder``.
package struct RequestPhases: Sendable {
    package enum Phase: Sendable, Equatable {
        /// The request line is in; the header fields are arriving.
        case awaitingHeaders
        /// Admission decides later; nothing of the body is read meanwhile.
        case admitting
        /// The body (if any) is arriving.
        case receiving
        /// The handler has the request and has not answered yet.
        case handling
        /// The handler answers later; the connection waits, suspended.
        case waiting
        /// The answer is queued (or the connection is being cut).
        case answered
    }

    /// What the transport does after an event.
    package enum Step: Sendable {
        /// Keep reading (the next header line, body piece, or the end of the body).
        case proceed
        /// Answer now, before the body is read (or with none to read): the connection closes
        /// after the answer when the request announced a body.
        case refuse(HTTPRejection)
        /// Answer now with the application's response.
        case answer(HTTPResponse)
        /// Suspend the connection until admission decides (``HTTPAdmission/later(_:)``).
        case awaitAdmission(@Sendable (HTTPAdmissionResponder) -> Void)
        /// The body is complete: hand the request to the handler.
        case handle(HTTPRequest)
        /// Give up on the exchange: close the connection without an answer (a refused body
        /// larger than the discard budget, which libmicrohttpd cannot interrupt).
        case abandon
    }

    package private(set) var phase = Phase.awaitingHeaders
    /// The request line and header fields, once in.
    package private(set) var head: HTTPRequestHead?
    private(set) var framing = FramingCheck.Framing.none
    /// This request's body limit, once admitted.
    private(set) var maxBodyBytes = 0
    /// Why the request is refused, once it is (its body is then read and thrown away).
    private(set) var rejection: HTTPRejection?
    /// Bytes of a refused body read and thrown away so far.
    private(set) var discardedBytes = 0
    private var body: [UInt8] = []
    /// Admission's answer to a request without a body, held for the last call.
    private var lastCall: AnswerOnLastCall
    /// What admission let through to the handler (``HTTPAdmission/proceed(maxBodyBytes:admissionContext:)``).
    private var admissionContext: (any Sendable)?
    private let limits: Limits

    /// The server-wide limits the machine applies.
    package struct Limits: Sendable {
        var maxBodyBytes: Int
        var maxDiscardBytes: Int
        /// Whether admission's answer to a request without a body waits for the last call
        /// (workaround ``MHDWorkarounds/answerOnLastCall``), so the connection is kept.
        var answersOnLastCall = true

        init(maxBodyBytes: Int, maxDiscardBytes: Int, answersOnLastCall: Bool = true) {
            self.maxBodyBytes = maxBodyBytes
            self.maxDiscardBytes = maxDiscardBytes
            self.answersOnLastCall = answersOnLastCall
        }

        package init(_ configuration: ServerConfiguration) {
            self.init(maxBodyBytes: configuration.maxBodyBytes, maxDiscardBytes: configuration.maxDiscardBytes,
                      answersOnLastCall: configuration.workarounds.contains(.answerOnLastCall))
        }
    }

    package init(limits: Limits) {
        self.limits = limits
        lastCall = AnswerOnLastCall(enabled: limits.answersOnLastCall)
    }

    /// Whether the request announced a body (and the connection must close if it is not read).
    var announcesBody: Bool { framing != .none }

    /// Bytes of the body received so far, kept or thrown away.
    var receivedBodyBytes: Int { body.count + discardedBytes }

    // MARK: Header fields

    /// The header fields are in. `refusal` is what the transport's own checks found (target,
    /// size, shape of the header section); then the framing is checked (RFC 9112 §6). Answers
    /// ``Step/refuse(_:)``, or ``Step/proceed`` when the request may meet admission.
    package mutating func headersArrived(_ head: HTTPRequestHead, refusal: HTTPRejection?) -> Step {
        precondition(phase == .awaitingHeaders, "headers arrive once")
        self.head = head
        if let refusal { return refuse(refusal) }
        switch FramingCheck.framing(of: head.headers) {
        case .failure(let reason): return refuse(reason.rejection)
        case .success(let found): framing = found
        }
        return .proceed
    }

    /// What the transport refuses before admission, in the order a client is best told about:
    /// the target (``TargetInspection``), the size of the head, its shape (workaround
    /// ``MHDWorkarounds/checkHeaderSectionShape``), `Host` (``HostField``). Each transport
    /// measures the head its own way: the socket server on libmicrohttpd's parse, the in-memory
    /// transport on the fields it was given.
    package static func transportRefusal(
        target: HTTPRejection?, headerBytes: () -> Int, headerSectionIsWellFormed: () -> Bool,
        headers: HTTPHeaders, httpVersion: () -> String, configuration: ServerConfiguration
    ) -> HTTPRejection? {
        if let target { return target }
        if headerBytes() > configuration.maxHeaderBytes { return .headersTooLarge(limit: configuration.maxHeaderBytes) }
        let workarounds = configuration.workarounds
        if workarounds.contains(.checkHeaderSectionShape), !headerSectionIsWellFormed() { return .malformedHeaderSection }
        if workarounds.contains(.checkHostItself), let refusal = HostField.refusal(headers, httpVersion: httpVersion()) {
            return refusal
        }
        return nil
    }

    // MARK: Admission

    /// Carries out admission's decision. `reserve` takes bytes of the server-wide body budget
    /// for a declared length (``BodyBudget``) and answers whether it could.
    package mutating func admitted(_ admission: HTTPAdmission, reserve: (Int) -> Bool) -> Step {
        precondition(phase == .awaitingHeaders || phase == .admitting, "admission decides once the headers are in")
        switch admission {
        case .answer(let response):
            if lastCall.hold(response, framing: framing) {
                phase = .receiving
                return .proceed
            }
            phase = .answered
            return .answer(response)
        case .later(let decide):
            phase = .admitting
            return .awaitAdmission(decide)
        case .proceed(let limit, let admissionContext):
            self.admissionContext = admissionContext
            // A route may ask for less than the server reads at most, never for more.
            maxBodyBytes = min(limit ?? limits.maxBodyBytes, limits.maxBodyBytes)
            phase = .receiving
            switch framing {
            case .none, .chunked:
                return .proceed
            case .length(let declared) where declared > maxBodyBytes:
                // A client waiting for `100 Continue` is spared the upload; one that sends at
                // once gets its 413 after the body was read and thrown away (libmicrohttpd
                // cannot answer in the middle of a body, and an answer before it would be lost
                // to the reset the unread body causes).
                guard let head, FramingCheck.expectsContinue(head.headers) else {
                    rejection = .payloadTooLarge(limit: maxBodyBytes)
                    return .proceed
                }
                return refuse(.payloadTooLarge(limit: maxBodyBytes))
            case .length(let declared):
                return reserve(declared) ? .proceed : refuse(.bodyBufferFull)
            }
        }
    }

    // MARK: Body

    /// A piece of the body arrived. `reserve` is asked for the bytes of a chunked body (a
    /// declared length was reserved at admission). Answers ``Step/proceed`` or ``Step/abandon``;
    /// a body over its limit is from then on read and thrown away, and refused at its end.
    package mutating func bodyArrived(_ piece: some Collection<UInt8>, reserve: (Int) -> Bool) -> Step {
        guard phase == .receiving else { return .proceed }
        if rejection != nil {
            discardedBytes += piece.count
            return discardedBytes <= limits.maxDiscardBytes ? .proceed : .abandon
        }
        if body.count + piece.count > maxBodyBytes {
            return startDiscarding(.payloadTooLarge(limit: maxBodyBytes), pieceCount: piece.count)
        }
        if case .chunked = framing, !reserve(piece.count) {
            return startDiscarding(.bodyBufferFull, pieceCount: piece.count)
        }
        body.append(contentsOf: piece)
        return .proceed
    }

    private mutating func startDiscarding(_ reason: HTTPRejection, pieceCount: Int) -> Step {
        rejection = reason
        discardedBytes = body.count + pieceCount
        body = []
        return discardedBytes <= limits.maxDiscardBytes ? .proceed : .abandon
    }

    /// The body is complete (or there was none): the deferred answer, the refusal, or the
    /// request for the handler.
    package mutating func bodyComplete() -> Step {
        guard phase == .receiving else { return .abandon }
        if let answer = lastCall.takeHeld() {
            phase = .answered
            return .answer(answer)
        }
        if let rejection { return refuse(rejection) }
        guard let head else { return .abandon }
        phase = .handling
        let request = HTTPRequest(head: head, body: body, admissionContext: admissionContext)
        body = []
        admissionContext = nil
        return .handle(request)
    }

    // MARK: Answers

    /// The handler answers later: the connection waits (suspended).
    package mutating func handlerWillAnswerLater() {
        if phase == .handling { phase = .waiting }
    }

    /// The answer is queued, or about to be (every path ends here).
    package mutating func answered() {
        phase = .answered
        body = []
        admissionContext = nil
    }

    /// A deadline cut the body short: its refusal (the one found already, or 408).
    mutating func bodyDeadlinePassed() -> HTTPRejection {
        cutShort(.requestTimeout)
    }

    /// The body cannot be read on (`reason`): its refusal, the one found already or `reason`.
    mutating func cutShort(_ reason: HTTPRejection) -> HTTPRejection {
        let refusal = rejection ?? reason
        rejection = refusal
        answered()
        return refusal
    }

    private mutating func refuse(_ reason: HTTPRejection) -> Step {
        rejection = reason
        phase = .answered
        return .refuse(reason)
    }
}
