@testable import MicroHTTPServer
import Testing

/// The request-phase machine on its own, without a socket: the rules both transports follow
/// (see `RequestPhases.swift`), one test per rule.
@Suite("RequestPhases: refuse, admit, read and answer, without a socket")
struct RequestPhasesTests {
    let limits = RequestPhases.Limits(maxBodyBytes: 100, maxDiscardBytes: 1_000)

    func head(_ method: String = "POST", _ fields: [(String, String)] = []) -> HTTPRequestHead {
        HTTPRequestHead(method: method, path: "/x", headers: HTTPHeaders(fields), rawPath: "/x")
    }

    func machine(_ fields: [(String, String)], method: String = "POST") -> RequestPhases {
        var phases = RequestPhases(limits: limits)
        guard case .proceed = phases.headersArrived(head(method, fields), refusal: nil) else {
            Issue.record("headers refused")
            return phases
        }
        return phases
    }

    private func isProceed(_ step: RequestPhases.Step) -> Bool { if case .proceed = step { true } else { false } }

    @Test("a transport refusal answers at once and ends the request")
    func transportRefusal() {
        var phases = RequestPhases(limits: limits)
        guard case .refuse(.headersTooLarge(limit: 8)) = phases.headersArrived(head(), refusal: .headersTooLarge(limit: 8)) else {
            Issue.record("not refused")
            return
        }
        #expect(phases.phase == .answered)
    }

    @Test("framing errors are refused before admission (RFC 9112 §6)")
    func framing() {
        var phases = RequestPhases(limits: limits)
        let step = phases.headersArrived(head("POST", [("Content-Length", "3"), ("Transfer-Encoding", "chunked")]), refusal: nil)
        guard case .refuse(.contentLengthWithTransferEncoding) = step else {
            Issue.record("\(step)")
            return
        }
    }

    @Test("admission's context reaches the handler's request with the body, exactly as admitted")
    func admissionContextCarried() {
        var phases = machine([("Content-Length", "3")])
        #expect(isProceed(phases.admitted(.proceed(admissionContext: "route 7"), reserve: { _ in true })))
        #expect(isProceed(phases.bodyArrived(Array("abc".utf8), reserve: { _ in true })))
        guard case .handle(let request) = phases.bodyComplete() else {
            Issue.record("not handed to the handler")
            return
        }
        #expect(request.admissionContext as? String == "route 7")
        #expect(request.body == Array("abc".utf8))
        #expect(phases.phase == .handling)
        phases.handlerWillAnswerLater()
        #expect(phases.phase == .waiting)
    }

    @Test("an admission answer to a request without a body waits for the last call (the connection is kept)")
    func answerWithoutBody() {
        var phases = machine([], method: "GET")
        let response = HTTPResponse(status: 401)
        #expect(isProceed(phases.admitted(.answer(response), reserve: { _ in true })))
        guard case .answer(let answered) = phases.bodyComplete() else {
            Issue.record("no deferred answer")
            return
        }
        #expect(answered.status == 401)
        #expect(phases.phase == .answered)
    }

    @Test("an admission answer to a request with a body answers at once (the body is never read)")
    func answerWithBody() {
        var phases = machine([("Content-Length", "5")])
        guard case .answer = phases.admitted(.answer(HTTPResponse(status: 403)), reserve: { _ in true }) else {
            Issue.record("not answered at once")
            return
        }
        #expect(phases.phase == .answered)
    }

    @Test("a later admission suspends the request until it decides")
    func laterAdmission() {
        var phases = machine([("Content-Length", "1")])
        guard case .awaitAdmission = phases.admitted(.later { _ in }, reserve: { _ in true }) else {
            Issue.record("not awaiting")
            return
        }
        #expect(phases.phase == .admitting)
        #expect(isProceed(phases.admitted(.proceed(), reserve: { _ in true })))
        #expect(phases.phase == .receiving)
    }

    @Test("a declared length above the route's limit is refused before the upload when the client expects 100-continue")
    func declaredTooLarge() {
        var phases = machine([("Content-Length", "50"), ("Expect", "100-continue")])
        guard case .refuse(.payloadTooLarge(limit: 10)) = phases.admitted(.proceed(maxBodyBytes: 10), reserve: { _ in true }) else {
            Issue.record("not refused")
            return
        }
    }

    @Test("without 100-continue an oversized body is read, thrown away, and refused at its end")
    func discardedThenRefused() {
        var phases = machine([("Content-Length", "50")])
        #expect(isProceed(phases.admitted(.proceed(maxBodyBytes: 10), reserve: { _ in true })))
        #expect(isProceed(phases.bodyArrived([UInt8](repeating: 1, count: 50), reserve: { _ in true })))
        guard case .refuse(.payloadTooLarge(limit: 10)) = phases.bodyComplete() else {
            Issue.record("not refused at the end")
            return
        }
    }

    @Test("a route may ask for less than the server's limit, never more")
    func routeLimitCapped() {
        var phases = machine([("Transfer-Encoding", "chunked")])
        #expect(isProceed(phases.admitted(.proceed(maxBodyBytes: 10_000), reserve: { _ in true })))
        #expect(phases.maxBodyBytes == 100)
    }

    @Test("a chunked body over the discard budget is abandoned (closed without an answer it could not get)")
    func abandonBeyondDiscard() {
        var phases = machine([("Transfer-Encoding", "chunked")])
        #expect(isProceed(phases.admitted(.proceed(), reserve: { _ in true })))
        #expect(isProceed(phases.bodyArrived([UInt8](repeating: 1, count: 500), reserve: { _ in true })))
        guard case .abandon = phases.bodyArrived([UInt8](repeating: 1, count: 600), reserve: { _ in true }) else {
            Issue.record("not abandoned")
            return
        }
    }

    @Test("a chunked body that the server-wide budget cannot hold is refused 503 at its end")
    func budgetFull() {
        var phases = machine([("Transfer-Encoding", "chunked")])
        #expect(isProceed(phases.admitted(.proceed(), reserve: { _ in true })))
        #expect(isProceed(phases.bodyArrived([UInt8](repeating: 1, count: 5), reserve: { _ in false })))
        guard case .refuse(.bodyBufferFull) = phases.bodyComplete() else {
            Issue.record("not refused")
            return
        }
    }

    @Test("a declared length the budget cannot reserve is refused 503 before the body")
    func declaredBudgetFull() {
        var phases = machine([("Content-Length", "5")])
        guard case .refuse(.bodyBufferFull) = phases.admitted(.proceed(), reserve: { _ in false }) else {
            Issue.record("not refused")
            return
        }
    }

    @Test("a body deadline answers 408, or the refusal already found")
    func deadline() {
        var phases = machine([("Content-Length", "5")])
        #expect(isProceed(phases.admitted(.proceed(), reserve: { _ in true })))
        #expect(phases.bodyDeadlinePassed() == .requestTimeout)
        #expect(phases.phase == .answered)
        var refused = machine([("Content-Length", "50")])
        _ = refused.admitted(.proceed(maxBodyBytes: 10), reserve: { _ in true })
        #expect(refused.bodyDeadlinePassed() == .payloadTooLarge(limit: 10))
    }
}
