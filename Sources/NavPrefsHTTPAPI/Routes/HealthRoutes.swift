import MicroHTTPServer

/// Liveness: the process is up and its event loop answers. Touches no storage.
struct HealthRoutes {
    var routes: [Route] {
        [
            Route("GET", "/healthz") { _ throws(APIError) in
                var headers = HTTPHeaders()
                headers.add("Content-Type", "application/json")
                headers.add("Cache-Control", "no-store")
                return .immediate(HTTPResponse(status: 200, headers: headers, bytes: Array("{\"status\":\"ok\"}\n".utf8)))
            }
        ]
    }
}
