import MicroHTTPServer

/// `X-Request-ID` on every answer: the client's own id when it sent a usable one
/// (``RequestID``), else the one the log line carries, so a client can quote an answer to
/// whoever reads the log.
///
/// Before ``CORSStep``: CORS exposes this field to a page of another origin, so it must be
/// there when CORS runs.
struct RequestIDStep: ResponseStep {
    func apply(to response: inout HTTPResponse, _ context: ResponseContext) {
        response.headers.add(HeaderName.xRequestID, context.requestID)
    }
}
