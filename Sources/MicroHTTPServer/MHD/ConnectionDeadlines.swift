import CMicroHTTPD

/// The header and body deadlines (``ServerConfiguration/headerTimeout``, ``ServerConfiguration/bodyTimeout``).
///
/// libmicrohttpd 0.9.75 has only an idle timer, which a client sending one byte a second never
/// trips (measured: `LimitsTests`). So the event loop checks, once a second (a quarter of the
/// shortest deadline when that is shorter), every
/// connection that is waiting for headers or a body, and cuts those past their deadline by
/// shutting their socket down: MHD then reads end-of-stream and closes the connection itself,
/// on its own thread, as for any client that leaves. A late body is first answered 408 (see
/// ``ServerCore/enforceDeadlines()``).
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
