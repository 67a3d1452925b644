import MicroHTTPServer

/// Lets a page of an allowed origin read the answer (``CORSPolicy/decorate(_:origin:)``), when
/// the request came from a page (`Origin`) and the service allows any origin at all.
///
/// After every field of the answer is in place, since it names which of them the page may read;
/// it leaves alone an answer that carries its CORS fields already (a preflight, answered by the
/// gate): twice, and browsers refuse the answer.
struct CORSStep: ResponseStep {
    let policy: CORSPolicy

    func apply(to response: inout HTTPResponse, _ context: ResponseContext) {
        guard !policy.origins.isEmpty, let origin = context.request.headers[HeaderName.origin],
              !response.headers.contains(HeaderName.accessControlAllowOrigin) else { return }
        policy.decorate(&response, origin: origin)
    }
}
