#if os(Linux)
    import Foundation

    /// Connections a request left open (HTTP/1.1 keep-alive), for the next request to the same
    /// server: a queued write then costs one round trip, not a TCP and TLS handshake and a thread
    /// on each side, which is what lets an outbox of a hundred writes drain within a second.
    ///
    /// A kept connection the server has closed meanwhile fails before any answer arrives; the
    /// request then goes out once more on a new connection at once (`SocketExchange`), which is
    /// safe for what the library sends: reads, and writes carrying an idempotency key.
    final class ConnectionPool: Sendable {
        private let idle = Locked<[(origin: String, channel: SocketChannel, since: ContinuousClock.Instant)]>([])
        /// Kept at most this long (the server's own keep-alive timeout is longer).
        private static let maxIdle = Duration.seconds(4)
        private static let maxKept = 4

        /// A kept connection to `origin`, the most recent first; `nil` when there is none.
        func take(_ origin: String) -> SocketChannel? {
            let now = ContinuousClock.now
            let (found, stale) = idle.withLock { idle -> (SocketChannel?, [SocketChannel]) in
                let stale = idle.filter { now - $0.since > Self.maxIdle }.map(\.channel)
                idle.removeAll { now - $0.since > Self.maxIdle }
                guard let index = idle.lastIndex(where: { $0.origin == origin }) else { return (nil, stale) }
                return (idle.remove(at: index).channel, stale)
            }
            for channel in stale { channel.close() }
            return found
        }

        /// Keeps `channel` (its answer read completely) for the next request to `origin`.
        func give(_ channel: SocketChannel, _ origin: String) {
            let evicted = idle.withLock { idle -> SocketChannel? in
                idle.append((origin, channel, .now))
                return idle.count > Self.maxKept ? idle.removeFirst().channel : nil
            }
            evicted?.close()
        }

        /// Closes every kept connection.
        func closeAll() {
            for entry in idle.withLock({ idle in defer { idle = [] }; return idle }) { entry.channel.close() }
        }

        deinit { closeAll() }
    }
#endif
