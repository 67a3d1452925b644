import CMicroHTTPD

/// The answers the server writes to a socket itself, where libmicrohttpd 0.9.75 cannot queue
/// one: a body that missed its deadline (MHD accepts a response only before or after a body),
/// a refusal MHD made with its own page (``MHDWorkarounds/answerLibraryRefusals``), and a head that leaves MHD's pool
/// no room for an answer (``RoomForAnswer``). Each closes the connection after the answer.
enum RawAnswer {
    /// Sends `response` with `Connection: close`, throws away what the client sent beyond it
    /// (a socket closed with unread bytes sends a reset, which can destroy the answer at the
    /// client), and shuts the socket down both ways: MHD then reads end-of-stream and closes the
    /// connection itself; anything it still tries to send fails.
    static func send(_ response: HTTPResponse, on socket: Int32) {
        guard socket >= 0 else { return }
        let bytes = MHDResponse.serialized(response)
        _ = bytes.withUnsafeBytes { cmhd_send_nonblocking(socket, $0.baseAddress, $0.count) }
        cmhd_drain_socket(socket, 1 << 20)
        cmhd_shutdown_socket(socket)
    }
}
