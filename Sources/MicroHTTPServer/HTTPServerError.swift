/// Why ``HTTPServer/start()`` failed.
public enum HTTPServerError: Error, Equatable, CustomStringConvertible {
    /// `host` is neither a numeric address nor a name that resolves.
    case invalidHost(String)
    /// libmicrohttpd could not start, typically because the address is in use or not local.
    case startFailed(host: String, port: Int)
    /// `start()` was called twice, or after shutdown.
    case alreadyStarted

    public var description: String {
        switch self {
        case .invalidHost(let host): "cannot resolve listening host '\(host)'"
        case .startFailed(let host, let port): "cannot listen on \(host):\(port) (address in use or not available)"
        case .alreadyStarted: "the server was already started"
        }
    }
}
