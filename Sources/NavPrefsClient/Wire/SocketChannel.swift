#if os(Linux)
    import Foundation
    import Glibc
    import Synchronization

    /// One TCP connection (with TLS on top when the URL says `https`), read and written with
    /// blocking calls on the thread that owns it: a connection waiting for bytes costs nothing,
    /// where swift-corelibs-foundation's URLSession keeps an idle stream's socket registered for
    /// writability and spins (about 2,400 wakeups a second were counted).
    ///
    /// Every pointer and file descriptor of the library's HTTP is in this type and ``TLSSession``.
    ///
    /// Safety (`@unchecked Sendable`): `descriptor` never changes; ``interrupt()`` (any thread)
    /// only calls `shutdown(2)`, which is thread-safe, and never after ``close()`` (one lock), which
    /// the owning thread calls once, after its last read or write.
    final class SocketChannel: @unchecked Sendable {
        private let descriptor: Int32
        private let tls: TLSSession?
        /// Whether ``close()`` ran (see ``interrupt()``).
        private let closed = Mutex(false)

        /// Connects to `url`'s host and port (resolving the name), within `timeout`.
        init(url: URL, timeout: Duration, tls context: @autoclosure () throws(NavPrefsError) -> TLSContext) throws(NavPrefsError) {
            guard let host = url.host, !host.isEmpty else { throw .invalidArgument("no host in \(url)") }
            let secure = url.scheme?.lowercased() == "https"
            let port = url.port ?? (secure ? 443 : 80)
            let descriptor = try Self.connect(host: host, port: port, timeout: timeout)
            self.descriptor = descriptor
            if secure {
                do {
                    tls = try TLSSession(descriptor: descriptor, host: host, context: context())
                } catch {
                    Glibc.close(descriptor)
                    throw error
                }
            } else {
                tls = nil
            }
        }

        /// Gives up reads and sends after `timeout` of silence (requests; the event stream has
        /// its own watchdog and waits indefinitely).
        func limitWaits(to timeout: Duration) {
            let seconds = max(timeout.components.seconds, 0)
            var limit = timeval(tv_sec: Int(seconds), tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
            _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        }

        /// Sends every byte, or throws.
        func write(_ bytes: [UInt8]) throws(NavPrefsError) {
            var offset = 0
            while offset < bytes.count {
                let sent: Int = bytes.withUnsafeBytes { raw in
                    let rest = UnsafeRawBufferPointer(rebasing: raw[offset...])
                    if let tls { return tls.write(rest) }
                    return send(descriptor, rest.baseAddress, rest.count, Int32(MSG_NOSIGNAL))
                }
                if sent < 0 && errno == EINTR && tls == nil { continue }
                guard sent > 0 else { throw .transport("the connection broke while sending (\(Self.lastError()))") }
                offset += sent
            }
        }

        /// Reads what has arrived (blocking until something has): the bytes; empty at the end of
        /// the connection.
        func read() throws(NavPrefsError) -> [UInt8] {
            var buffer = [UInt8](repeating: 0, count: 16_384)
            while true {
                let count: Int = buffer.withUnsafeMutableBytes { raw in
                    if let tls { return tls.read(raw) }
                    return recv(descriptor, raw.baseAddress, raw.count, 0)
                }
                if count < 0 && errno == EINTR && tls == nil { continue }
                if count < 0 {
                    if errno == EAGAIN || errno == EWOULDBLOCK { throw .transport("no answer in time") }
                    throw .transport("the connection broke (\(Self.lastError()))")
                }
                return Array(buffer[..<count])
            }
        }

        /// Blocks SIGPIPE on the calling thread (one of the library's own, which are the only ones
        /// that read or write its connections): OpenSSL writes with write(2), and a write to a
        /// connection the server closed must fail with EPIPE, not end the process. The signal then
        /// stays pending on a thread that ends soon after; the process's own handling of SIGPIPE
        /// is left alone.
        static func blockBrokenPipeSignal() {
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGPIPE)
            _ = pthread_sigmask(SIG_BLOCK, &set, nil)
        }

        /// Wakes a blocked read or send from another thread (they then fail or see the end).
        /// Under the same lock as ``close()``: once the descriptor is closed its number may
        /// belong to another socket of the process, which a late interrupt must never shut down.
        func interrupt() {
            closed.withLock { closed in
                if !closed { _ = shutdown(descriptor, Int32(SHUT_RDWR)) }
            }
        }

        /// Closes the connection; call once, after the last read or write. No TLS close_notify is
        /// sent (writing it could raise SIGPIPE on a thread that is not the library's, such as
        /// the one releasing the connection pool); every answer is framed by HTTP, so nothing
        /// relies on it.
        func close() {
            closed.withLock { closed in
                guard !closed else { return }
                closed = true
                Glibc.close(descriptor)
            }
        }

        private static func lastError() -> String { String(cString: strerror(errno)) }

        /// A connected TCP socket to `host`:`port`: each resolved address in turn, each within `timeout`.
        private static func connect(host: String, port: Int, timeout: Duration) throws(NavPrefsError) -> Int32 {
            var hints = addrinfo()
            hints.ai_family = AF_UNSPEC
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            let resolved = getaddrinfo(host, String(port), &hints, &list)
            guard resolved == 0, let list else {
                throw .transport("cannot resolve \(host): \(String(cString: gai_strerror(resolved)))")
            }
            defer { freeaddrinfo(list) }
            var reason = "no address"
            var node: UnsafeMutablePointer<addrinfo>? = list
            while let entry = node {
                node = entry.pointee.ai_next
                let socket = Glibc.socket(entry.pointee.ai_family, entry.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue),
                                          entry.pointee.ai_protocol)
                guard socket >= 0 else { continue }
                if let failure = attempt(socket, entry.pointee.ai_addr, entry.pointee.ai_addrlen, timeout: timeout) {
                    reason = failure
                    Glibc.close(socket)
                    continue
                }
                var one: Int32 = 1
                _ = setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                return socket
            }
            throw .transport("cannot connect to \(host):\(port): \(reason)")
        }

        /// A non-blocking connect bounded by `timeout`, the socket left blocking; why it failed, or nil.
        private static func attempt(_ socket: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t,
                                    timeout: Duration) -> String? {
            let flags = fcntl(socket, F_GETFL)
            _ = fcntl(socket, F_SETFL, flags | O_NONBLOCK)
            defer { _ = fcntl(socket, F_SETFL, flags) }
            if Glibc.connect(socket, address, length) == 0 { return nil }
            guard errno == EINPROGRESS else { return lastError() }
            var waiting = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
            let deadline = ContinuousClock.now + timeout
            while true {
                let left = deadline - ContinuousClock.now
                let milliseconds = Int32(clamping: max(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000, 0))
                let ready = poll(&waiting, 1, milliseconds)
                if ready < 0 && errno == EINTR { continue }
                guard ready == 1 else { return "no answer within \(timeout)" }
                break
            }
            var failure: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(socket, SOL_SOCKET, SO_ERROR, &failure, &size)
            return failure == 0 ? nil : String(cString: strerror(failure))
        }
    }
#endif
