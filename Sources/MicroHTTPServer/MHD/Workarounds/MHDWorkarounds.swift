/// What libmicrohttpd 0.9.75 (Debian 12's) does that the server works around, one member each.
///
/// Each workaround's code lives in one place, named after it, with its reason; each can be
/// switched off (``ServerConfiguration/workarounds``, for tests only) so that a test shows the
/// library's own behaviour next to the server's (`Tests/MicroHTTPServerTests/WorkaroundTests.swift`).
/// The server's event loop itself (`EventLoop.swift`) works around one more, which cannot be
/// switched off: MHD's internal epoll thread can stall when 128·k sockets turn ready at once
/// (`bench/modes.sh` shows it on MHD's own thread).
package struct MHDWorkarounds: OptionSet, Sendable, Equatable {
    package let rawValue: Int

    package init(rawValue: Int) { self.rawValue = rawValue }

    /// MHD closes the connection after any response queued on the access handler's first call
    /// (`MHD_queue_response`: "response was queued early, refuse to read body"), even for a
    /// request without a body. An admission's answer to such a request waits for the last
    /// call (``AnswerOnLastCall``), and keeps the connection.
    static let answerOnLastCall = MHDWorkarounds(rawValue: 1 << 0)
    /// In external-epoll mode, `MHD_resume_connection` from another thread does not wake the
    /// daemon: every answer from another thread would wait for the loop's timeout. Each resume
    /// signals the loop's eventfd (``ConnectionHandle/resume()``).
    static let wakeOnResume = MHDWorkarounds(rawValue: 1 << 1)
    /// HEAD of a chunked response is sent with the terminating `0\r\n\r\n` after its head,
    /// which a keep-alive client reads as the start of the next response
    /// (``MHDResponse/queueHeadOfStream(status:headers:on:)``).
    package static let headOfStreamUnframed = MHDWorkarounds(rawValue: 1 << 2)
    /// A streamed response whose client stopped reading is never asked for data again, so an
    /// abort is never noticed; the loop shuts such sockets down (``ServerCore/cutAbortedStreams()``).
    static let cutStalledStreams = MHDWorkarounds(rawValue: 1 << 3)
    /// MHD decodes `%00` and cuts the path or argument there, handing on another resource
    /// (``TargetInspection``).
    static let refuseEscapedNUL = MHDWorkarounds(rawValue: 1 << 4)
    /// MHD stores every query argument of a target in the connection's pool and, once it is
    /// full, answers nothing: a refused target's arguments are never parsed (``TargetInspection``).
    static let dropRefusedArguments = MHDWorkarounds(rawValue: 1 << 5)
    /// MHD reads an obs-folded line or whitespace before a colon by dropping a field
    /// (`Content-Length`, say), so the body becomes the next request (``HeaderSectionShape``).
    static let checkHeaderSectionShape = MHDWorkarounds(rawValue: 1 << 6)
    /// MHD's own refusals (an oversized head, a `Cookie` field its pool cannot split, a bad
    /// `Content-Length`, a malformed line) are HTML pages, and when they are found after the
    /// header fields, MHD answers twice on one connection or closes it without an answer. The
    /// server answers them itself, as problem+json (`MHD/Workarounds/LibraryRefusals.swift`).
    static let answerLibraryRefusals = MHDWorkarounds(rawValue: 1 << 7)
    /// MHD's own check for `Host` (`MHD_OPTION_STRICT_FOR_CLIENT`) answers a request without
    /// one with its status line and headers twice; the server checks `Host` itself
    /// (``HostField``) and runs MHD without that option.
    static let checkHostItself = MHDWorkarounds(rawValue: 1 << 8)

    /// MHD builds the head of its answer in the pool that holds the request; a request that
    /// filled it gets no answer at all (the connection is closed). A head that leaves too little
    /// room is refused with 431 before the handler, written to the socket (``RoomForAnswer``).
    static let keepRoomForAnswer = MHDWorkarounds(rawValue: 1 << 9)

    /// MHD resumes a connection that waited for its answer by reading it first, and a client
    /// that shut down its sending side meanwhile makes it close the connection with the answer
    /// unsent. The server writes such an answer to the socket itself (``AnswerOnSocket``).
    static let answerHalfClosed = MHDWorkarounds(rawValue: 1 << 10)
    /// MHD does not watch a suspended connection, so a stream's client that left was noticed
    /// only at the next write, and kept its slot until then; the event loop watches stream
    /// sockets for hang-ups itself (``ServerCore/watchHangUp(of:socket:)``).
    static let watchSuspendedHangUps = MHDWorkarounds(rawValue: 1 << 11)
    /// A chunk line longer than MHD's read buffer is never parsed: MHD stops reading the
    /// connection and spins until the body deadline. The server refuses such a body with 400
    /// at once (``ServerCore/refuseLongChunkLines()``).
    static let refuseLongChunkLines = MHDWorkarounds(rawValue: 1 << 12)

    static let all: MHDWorkarounds = [
        .answerOnLastCall, .wakeOnResume, .headOfStreamUnframed, .cutStalledStreams, .refuseEscapedNUL,
        .dropRefusedArguments, .checkHeaderSectionShape, .answerLibraryRefusals, .checkHostItself, .keepRoomForAnswer,
        .answerHalfClosed, .watchSuspendedHangUps, .refuseLongChunkLines,
    ]
}
