import MicroHTTPServer

/// What a ``ResponseStep`` knows of the exchange besides the answer: the request's head, the
/// route that answered, the request's id and how long the answer took, worked out once for
/// every step.
struct ResponseContext {
    let request: HTTPRequestHead
    /// The route template, `-` when none matched.
    let route: String
    let requestID: String
    /// The method as sent, cut to 20 characters: it goes into metrics labels and the log, and
    /// a client may send any token as a method.
    let method: String
    /// From the request's arrival to now.
    let microseconds: Int64
    /// What the server refused below the router (``HTTPRejection/kind``), for the log.
    let rejection: String?

    init(request: HTTPRequestHead, route: String, requestID: String, microseconds: Int64, rejection: String? = nil) {
        self.request = request
        self.route = route
        self.requestID = requestID
        method = request.method.utf8.count <= 20 ? request.method : String(request.method.prefix(20))
        self.microseconds = microseconds
        self.rejection = rejection
    }

    /// The context of an answer made now, timed from the request's arrival.
    init(answering request: HTTPRequestHead, route: String, requestID: String) {
        let elapsed = (ContinuousClock.now - request.receivedAt).components
        self.init(request: request, route: route, requestID: requestID,
                  microseconds: elapsed.seconds * 1_000_000 + elapsed.attoseconds / 1_000_000_000_000)
    }
}
