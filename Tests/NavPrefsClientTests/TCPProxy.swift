import Foundation
import Glibc
import Synchronization

/// A TCP forwarder between the library and the server, to break the network on purpose: cut
/// every connection (a network drop), freeze them (a network that goes silent without closing
/// anything), cut the next answer after its first bytes (a lost answer), and send each new
/// connection to the next of several servers (a load balancer over instances).
final class TCPProxy: Sendable {
    let port: Int
    private let listener: Int32
    private let state = Mutex(State())

    private struct State {
        var upstreams: [Int] = []
        var next = 0
        var links: [Link] = []
        var answersToLose = 0
        var closed = false
    }

    /// One forwarded connection: the client's socket and the server's.
    private final class Link: Sendable {
        let client: Int32
        let upstream: Int32
        let frozen = Atomic<Bool>(false)
        let cut = Atomic<Bool>(false)
        /// Pumps that have returned; the second closes both sockets, so that neither pump can
        /// write to a descriptor number the system has given to something else meanwhile.
        let finished = Atomic<Int>(0)
        /// Whether the sockets are closed; held across every shutdown and the close, so that a
        /// cut never shuts down a descriptor number the system has reused (before, a cut from
        /// the test's thread could land after both pumps had closed, on the test's own next
        /// connection: "connection closed by server" with the server never having seen it).
        private let descriptors = Mutex(false)

        init(client: Int32, upstream: Int32) {
            self.client = client
            self.upstream = upstream
        }

        /// Ends both sides (wakes the pumps blocked in recv); the second pump to return closes them.
        func sever() {
            descriptors.withLock { closed in
                guard !closed, !cut.exchange(true, ordering: .acquiringAndReleasing) else { return }
                shutdown(client, Int32(SHUT_RDWR))
                shutdown(upstream, Int32(SHUT_RDWR))
            }
        }

        func closeSockets() {
            descriptors.withLock { closed in
                guard !closed else { return }
                closed = true
                Glibc.close(client)
                Glibc.close(upstream)
            }
        }
    }

    init(upstreams: [Int]) throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(socket, 64) == 0 else { Glibc.close(socket); throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        listener = socket
        port = Int(UInt16(bigEndian: address.sin_port))
        state.withLock { $0.upstreams = upstreams }
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Where new connections go: round robin over several, starting with the first.
    func route(to upstreams: [Int]) {
        state.withLock { state in
            state.upstreams = upstreams
            state.next = 0
        }
    }

    /// Breaks every open connection, as a dropped network does.
    func cutAll() {
        for link in state.withLock({ state in defer { state.links = [] }; return state.links }) { link.sever() }
    }

    /// Stops forwarding on every open connection, closing nothing (new ones still pass).
    func freezeAll() {
        for link in state.withLock({ $0.links }) { link.frozen.store(true, ordering: .releasing) }
    }

    /// The next `count` answers are cut after their first bytes: the server did the work, the
    /// client never learns the outcome.
    func loseAnswers(_ count: Int) { state.withLock { $0.answersToLose += count } }

    func close() {
        guard !state.withLock({ state in defer { state.closed = true }; return state.closed }) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        Glibc.close(listener)
        cutAll()
    }

    deinit { close() }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                if errno == EINTR { continue }
                return
            }
            guard let upstreamPort = state.withLock({ state -> Int? in
                guard !state.closed, !state.upstreams.isEmpty else { return nil }
                defer { state.next += 1 }
                return state.upstreams[state.next % state.upstreams.count]
            }), let upstream = Self.connect(to: upstreamPort) else {
                Glibc.close(client)
                continue
            }
            let link = Link(client: client, upstream: upstream)
            state.withLock { $0.links.append(link) }
            Thread { [self] in pump(from: client, to: upstream, link, answers: false) }.start()
            Thread { [self] in pump(from: upstream, to: client, link, answers: true) }.start()
        }
    }

    private func pump(from source: Int32, to destination: Int32, _ link: Link, answers: Bool) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        defer {
            link.sever()
            if link.finished.add(1, ordering: .acquiringAndReleasing).newValue == 2 { link.closeSockets() }
        }
        while !link.cut.load(ordering: .acquiring) {
            let count = recv(source, &buffer, buffer.count, 0)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            while link.frozen.load(ordering: .acquiring) && !link.cut.load(ordering: .acquiring) { usleep(10_000) }
            var bytes = buffer[0..<count]
            if answers, state.withLock({ state in
                guard state.answersToLose > 0 else { return false }
                state.answersToLose -= 1
                return true
            }) {
                // A few bytes of the status line, then nothing: the answer is lost mid-way, so
                // no HTTP client can mistake it for a connection that died unused.
                bytes = bytes.prefix(5)
                _ = bytes.withUnsafeBytes { send(destination, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                return
            }
            while !bytes.isEmpty {
                let sent = bytes.withUnsafeBytes { send(destination, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if sent < 0 && errno == EINTR { continue }
                guard sent > 0 else { return }
                bytes = bytes.dropFirst(sent)
            }
        }
    }

    private static func connect(to port: Int) -> Int32? {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(socket)
            return nil
        }
        return socket
    }
}
