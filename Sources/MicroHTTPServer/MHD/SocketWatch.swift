import CMicroHTTPD
import Glibc

/// The event loop's own epoll set (see `shim.h`): libmicrohttpd's epoll descriptor and the
/// wake-up eventfd, which the loop adds, and the sockets the server watches itself while
/// libmicrohttpd does not: the socket of a suspended stream, for its client's hang-up
/// (workaround ``MHDWorkarounds/watchSuspendedHangUps``), and one the server is writing an
/// answer to itself, for room to write (``MHDWorkarounds/answerHalfClosed``).
///
/// Each watch carries a token the loop hands back with what the socket reported. A socket's
/// watch ends with ``unwatch(_:)``, or when the socket is closed (the kernel drops it from the
/// set); the server unwatches before libmicrohttpd closes a socket, so a token never reaches a
/// later connection that got the same descriptor number.
final class SocketWatch: Sendable {
    /// -1 if the process is out of descriptors; the event loop then refuses to start.
    let descriptor: Int32

    /// What a watched socket reported, with the token it was watched under.
    struct Report: Sendable, Equatable {
        let token: Int
        /// The connection failed or is closed both ways.
        let hungUp: Bool
        /// The client finished sending (it shut down its side, or closed).
        let peerFinished: Bool
        /// There is room to send.
        let writable: Bool
    }

    /// Reports handed back by one wait at most.
    static let reportsPerWait = 64

    init() { descriptor = cmhd_loop_epoll_create() }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Watches `socket` for its client finishing or hanging up.
    @discardableResult
    func watchHangUp(_ socket: Int32, token: Int) -> Bool {
        socket >= 0 && cmhd_loop_watch(descriptor, socket, UInt64(token), 0) == 0
    }

    /// Watches `socket` for room to send (and its hang-up).
    @discardableResult
    func watchWritable(_ socket: Int32, token: Int) -> Bool {
        socket >= 0 && cmhd_loop_watch(descriptor, socket, UInt64(token), 1) == 0
    }

    func unwatch(_ socket: Int32) {
        if socket >= 0 { cmhd_loop_unwatch(descriptor, socket) }
    }

    /// Turns what `cmhd_loop_wait` wrote into reports.
    static func reports(tokens: UnsafeBufferPointer<UInt64>, events: UnsafeBufferPointer<UInt32>, count: Int) -> [Report] {
        guard count > 0 else { return [] }
        let hangUp = cmhd_event_hang_up(), finished = cmhd_event_peer_finished(), writable = cmhd_event_writable()
        return (0..<count).map { index in
            Report(token: Int(truncatingIfNeeded: tokens[index]), hungUp: events[index] & hangUp != 0,
                   peerFinished: events[index] & finished != 0, writable: events[index] & writable != 0)
        }
    }
}
