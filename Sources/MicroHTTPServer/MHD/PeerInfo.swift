import CMicroHTTPD

/// What stays the same for every request of a connection, and where the connection is in its
/// current request, kept in its socket context from MHD's "connection started" notice to its
/// "closed" notice.
///
/// Safety: created, read and changed only on the event-loop thread (MHD callbacks and the loop).
final class PeerInfo {
    /// Where the connection is, as far as the deadlines care.
    enum Phase {
        /// Waiting for (the rest of) a request line and header fields (since ``PeerInfo/waitingSince``).
        case headers
        /// Receiving the body admission let come (since ``PeerInfo/waitingSince``).
        case body(context: RequestContext)
        /// The application has the request, or a response is being sent: no deadline.
        case busy

        /// For ``PeerInfo/waitingSince``: set when the phase is (each phase starts now).
        var waiting: (since: Int64, body: Bool) {
            switch self {
            case .headers: (cmhd_monotonic_ns(), false)
            case .body: (cmhd_monotonic_ns(), true)
            case .busy: (0, false)
            }
        }
    }

    let id: Int
    let remoteAddress: String?
    /// The connection's socket, or -1 if MHD could not tell (it then has no deadlines).
    let socket: Int32
    var phase: Phase {
        didSet { (waitingSince, waitingForBody) = phase.waiting }
    }
    /// Since when (``cmhd_monotonic_ns()``) the connection waits for the client, 0 while busy,
    /// and whether for a body: what the deadline check reads for each of thousands of
    /// connections several times a second, as plain integers. Copying the phase (an enum with a
    /// payload) and `ContinuousClock.Instant` (resilient) went through the runtime for every
    /// peer: the largest cost of an idle server holding 10,000 streams (perf, bench/README.md).
    private(set) var waitingSince: Int64
    private(set) var waitingForBody = false
    /// The request in progress on this connection, from its request line to MHD's completion
    /// notice (`MHD/Workarounds/LibraryRefusals.swift` looks for the one MHD refuses).
    var request: RequestContext?

    init(connection: OpaquePointer, id: Int) {
        self.id = id
        remoteAddress = cmhd_client_address(connection).flatMap(SocketAddress.text(of:))
        socket = cmhd_connection_fd(connection)
        phase = .headers
        waitingSince = cmhd_monotonic_ns()
    }

    /// The peer of `connection`, from its socket context.
    static func of(_ connection: OpaquePointer) -> PeerInfo? {
        guard let context = cmhd_socket_context(connection) else { return nil }
        return Unmanaged<PeerInfo>.fromOpaque(context).takeUnretainedValue()
    }
}
