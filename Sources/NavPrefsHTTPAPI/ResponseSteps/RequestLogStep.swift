import MicroHTTPServer

/// Writes the request's one log line: its id, method, route, status, time and the client's
/// address (behind a trusted proxy, the one it forwarded); for a refusal below the router,
/// what was refused.
///
/// Last: the line tells the answer as it leaves, with the status the metrics counted, and a
/// reader of the log sees nothing the client did not.
struct RequestLogStep: ResponseStep {
    let logger: Logger
    let policy: RequestPolicy

    func apply(to response: inout HTTPResponse, _ context: ResponseContext) {
        let request = context.request
        guard let rejection = context.rejection else {
            guard logger.isEnabled(.info) else { return }
            logger.request(id: context.requestID, method: context.method, route: context.route, status: response.status,
                           microseconds: context.microseconds,
                           remote: policy.clientAddress(peer: request.remoteAddress, headers: request.headers))
            return
        }
        logger.info("request", [
            "request_id": .string(context.requestID), "method": .string(context.method), "route": .string(context.route),
            "status": .integer(Int64(response.status)), "rejected": .string(rejection),
            "remote": .string(policy.clientAddress(peer: request.remoteAddress, headers: request.headers)),
        ])
    }
}
