import Foundation
import MicroHTTPServer
import Synchronization

/// A handler with one route per server behaviour under test.
final class TestHandler: HTTPHandler {
    /// Streams opened by `/stream`, so tests can write to them later.
    let streams = Mutex<[ResponseStream]>([])
    let terminations = Mutex<[ResponseStream.Termination]>([])
    /// Every refusal the server asked this handler to answer, in order.
    let rejections = Mutex<[HTTPRejection]>([])
    /// Paths that reached `handle`, in order.
    let handled = Mutex<[String]>([])
    /// Responders of `/held` requests, answered when a test says (``release(with:)``).
    let held = Mutex<[HTTPResponder]>([])

    /// Responders of `/held-stream` requests, answered with a stream by ``releaseStreams()``.
    let heldStreams = Mutex<[HTTPResponder]>([])

    /// Answers every held stream request with a stream that starts with `opening`.
    func releaseStreams(opening: String) {
        for responder in heldStreams.withLock({ held in defer { held = [] }; return held }) {
            responder.respond(HTTPResponse(status: 200, body: .stream { stream in
                stream.write(opening)
                stream.onTermination { reason in self.terminations.withLock { $0.append(reason) } }
                self.streams.withLock { $0.append(stream) }
            }))
        }
    }

    /// Answers every held request with `status`.
    func release(with status: Int) {
        for responder in held.withLock({ held in defer { held = [] }; return held }) {
            responder.respond(HTTPResponse(status: status, bytes: Array("released".utf8)))
        }
    }

    /// Admission by path: `/guarded` is answered 401 at once, `/guarded-later` 403 after `ms`,
    /// `/admit-later` proceeds after `ms`, `/tiny` proceeds with a 10-byte body limit.
    func admit(_ head: HTTPRequestHead) -> HTTPAdmission {
        let milliseconds = Int(head.queryValue("ms") ?? "") ?? 0
        switch head.path {
        case "/guarded":
            return .answer(HTTPResponse(status: 401, bytes: Array("no token\n".utf8)))
        case "/guarded-later":
            return .later { responder in
                Task {
                    try? await Task.sleep(for: .milliseconds(milliseconds))
                    responder.decide(.answer(HTTPResponse(status: 403, bytes: Array("token refused\n".utf8))))
                }
            }
        case "/admit-later":
            return .later { responder in
                Task {
                    try? await Task.sleep(for: .milliseconds(milliseconds))
                    responder.decide(.proceed(admissionContext: "admitted later"))
                }
            }
        case "/tiny":
            return .proceed(maxBodyBytes: 10)
        default:
            return .proceed()
        }
    }

    /// Answers refusals in the application's own format, and records them.
    func response(for rejection: HTTPRejection, head: HTTPRequestHead) -> HTTPResponse {
        rejections.withLock { $0.append(rejection) }
        var headers = HTTPHeaders()
        headers.add("Content-Type", "application/problem+json")
        if let seconds = rejection.retryAfterSeconds { headers.add("Retry-After", String(seconds)) }
        return HTTPResponse(status: rejection.status, headers: headers,
                            bytes: Array("{\"kind\":\"\(rejection.kind)\",\"path\":\"\(head.rawPath)\"}".utf8))
    }

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        if let response = response(to: request, responder: responder) { responder.respond(response) }
    }

    /// The answer now, or `nil` when the route answers later through `responder` itself.
    private func response(to request: HTTPRequest, responder: HTTPResponder) -> HTTPResponse? {
        handled.withLock { $0.append(request.path) }
        if request.path.hasPrefix("/raw/") {
            let segments = HTTPRequestHead.decodedSegments(ofRawPath: request.rawPath) ?? []
            let text = "path=\(request.path) raw=\(request.rawPath) segments=\(segments.joined(separator: "|"))"
            return (HTTPResponse(status: 200, bytes: Array(text.utf8)))
        }
        switch request.path {
        case "/not-modified":  // `?length=n`: the 200's length; without it, none
            var headers = HTTPHeaders()
            headers.add("ETag", "\"7\"")
            return .notModified(headers: headers, representationLength: request.queryValue("length").flatMap { Int($0) })
        case "/not-modified-bytes":  // a 304 built with an (empty) byte body, as a careless handler would
            var headers = HTTPHeaders()
            headers.add("ETag", "\"7\"")
            return HTTPResponse(status: 304, headers: headers, bytes: [])
        case "/echo", "/admit-later", "/tiny":
            let query = request.query.map { "\($0.name)=\($0.value ?? "<nil>")" }.joined(separator: "&")
            let text = "\(request.method) \(request.path) q[\(query)] body=\(request.body.count) "
                + "x-test=\(request.headers["X-Test"] ?? "-") remote=\(request.remoteAddress ?? "-")"
                + (request.admissionContext.map { " admissionContext=\($0)" } ?? "")
            return (HTTPResponse(status: 200, bytes: Array(text.utf8)))
        case "/slow":
            let milliseconds = Int(request.queryValue("ms") ?? "") ?? 100
            Task {
                try? await Task.sleep(for: .milliseconds(milliseconds))
                responder.respond(HTTPResponse(status: 200, bytes: Array("slept \(milliseconds)".utf8)))
            }
            return nil
        case "/held":
            held.withLock { $0.append(responder) }
            return nil
        case "/held-stream":  // answered later, by releaseStreams()
            heldStreams.withLock { $0.append(responder) }
            return nil
        case "/thread":
            // Answered from a thread of its own, as a store's writer answers: no task involved.
            let thread = Thread {
                usleep(2_000)
                responder.respond(HTTPResponse(status: 200, bytes: Array("from a thread".utf8)))
            }
            thread.start()
            return nil
        case "/stream":
            return (HTTPResponse(status: 200, body: .stream { stream in
                stream.write("first\n")
                stream.onTermination { reason in self.terminations.withLock { $0.append(reason) } }
                self.streams.withLock { $0.append(stream) }
            }))
        default:
            return (HTTPResponse(status: 404, bytes: Array("no such path".utf8)))
        }
    }
}

/// Starts a server on an ephemeral port for the duration of `body`, then shuts it down,
/// also when `body` throws.
func withTestServer<T>(
    _ configuration: ServerConfiguration = ServerConfiguration(port: 0),
    handler: TestHandler = TestHandler(),
    messageLog: (@Sendable (String) -> Void)? = nil,
    _ body: (HTTPServer, TestHandler) async throws -> T
) async throws -> T {
    let server = HTTPServer(configuration: configuration, handler: handler, messageLog: messageLog)
    try server.start()
    do {
        let result = try await body(server, handler)
        await server.shutdown(gracePeriod: .seconds(2))
        return result
    } catch {
        await server.shutdown(gracePeriod: .seconds(2))
        throw error
    }
}

/// CPU time (user + system, in clock ticks) a thread of this process has used.
func cpuTicks(ofThread threadID: Int32) throws -> Int {
    let stat = try String(contentsOfFile: "/proc/self/task/\(threadID)/stat", encoding: .utf8)
    // Fields after the command name (which is in parentheses and may contain spaces).
    guard let close = stat.lastIndex(of: ")") else { return 0 }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    // utime and stime are fields 14 and 15 of the whole line, i.e. 12 and 13 after the name.
    return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
}
