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

/// The header and body deadlines (``ServerConfiguration/headerTimeout``, ``ServerConfiguration/bodyTimeout``).
///
/// libmicrohttpd 0.9.75 has only an idle timer, which a client sending one byte a second never
/// trips (measured: `LimitsTests`). So the event loop checks, once a second (a quarter of the
/// shortest deadline when that is shorter), every
/// connection that is waiting for headers or a body, and cuts those past their deadline by
/// shutting their socket down: MHD then reads end-of-stream and closes the connection itself,
/// on its own thread, as for any client that leaves. A late body is first answered 408 (see
/// ``ServerCore/bodyDeadlinePassed(_:on:)``).
///
/// Safety (`@unchecked Sendable`): only the event-loop thread touches it (MHD callbacks run there).
final class ConnectionDeadlines: @unchecked Sendable {
    private var peers: [Int: PeerInfo] = [:]
    private var nextCheck = ContinuousClock.now
    /// The timeouts in nanoseconds; 0: none.
    private let headerTimeoutNanoseconds: Int64
    private let bodyTimeoutNanoseconds: Int64
    /// How often the loop looks; a deadline is enforced at most this late.
    private let checkInterval: Duration

    init(headerTimeout: Duration, bodyTimeout: Duration) {
        headerTimeoutNanoseconds = max(0, headerTimeout.nanoseconds)
        bodyTimeoutNanoseconds = max(0, bodyTimeout.nanoseconds)
        let shortest = [headerTimeout, bodyTimeout].filter { $0 > .zero }.min() ?? .seconds(1)
        checkInterval = min(.seconds(1), shortest / 4)
    }

    /// Every open connection with a known socket.
    var openPeers: Dictionary<Int, PeerInfo>.Values { peers.values }

    func opened(_ peer: PeerInfo) {
        if peer.socket >= 0 { peers[peer.id] = peer }
    }

    func closed(_ peer: PeerInfo) {
        peers.removeValue(forKey: peer.id)
        peer.phase = .busy  // drops the context a body phase held
        peer.request = nil
    }

    /// Calls `expired` for each connection past its deadline (each once: its phase becomes busy).
    func check(now: ContinuousClock.Instant, expired: (PeerInfo, PeerInfo.Phase) -> Void) {
        guard now >= nextCheck else { return }
        nextCheck = now + checkInterval
        var late: [(PeerInfo, PeerInfo.Phase)] = []
        let nowNanoseconds = cmhd_monotonic_ns()
        for peer in peers.values where peer.waitingSince != 0 {
            let timeout = peer.waitingForBody ? bodyTimeoutNanoseconds : headerTimeoutNanoseconds
            if timeout > 0 && nowNanoseconds - peer.waitingSince > timeout {
                late.append((peer, peer.phase))
                peer.phase = .busy
            }
        }
        for (peer, phase) in late { expired(peer, phase) }
    }
}

extension Duration {
    /// The duration in whole nanoseconds (saturating).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? (seconds < 0 ? .min : .max) : whole &+ attoseconds / 1_000_000_000
    }
}
