import CMicroHTTPD

/// Turns ``HTTPResponse`` values into libmicrohttpd responses and queues them.
enum MHDResponse {
    /// Queues a complete body; MHD copies the bytes (`RESPMEM_MUST_COPY`).
    static func queueBytes(
        _ bytes: [UInt8], status: Int, headers: HTTPHeaders, close: Bool, on connection: OpaquePointer
    ) -> MHD_Result {
        let response = bytes.withUnsafeBytes { raw in
            MHD_create_response_from_buffer(raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress),
                                            .RESPMEM_MUST_COPY)
        }
        guard let response else { return .NO }
        defer { MHD_destroy_response(response) }
        addHeaders(headers, close: close, to: response)
        return MHD_queue_response(connection, UInt32(clamping: status), response)
    }

    /// Queues a body prepared off the loop (``AnswerBudget``): libmicrohttpd sends its memory as
    /// is and hands it back (``preparedFreed``) when done, which frees it and its budget.
    static func queuePrepared(
        _ body: PreparedBody, status: Int, headers: HTTPHeaders, close: Bool, on connection: OpaquePointer
    ) -> MHD_Result {
        let retained = Unmanaged.passRetained(body).toOpaque()
        guard let response = MHD_create_response_from_buffer_with_free_callback_cls(body.count, body.base, preparedFreed, retained)
        else {
            Unmanaged<PreparedBody>.fromOpaque(retained).release()
            return .NO
        }
        defer { MHD_destroy_response(response) }
        addHeaders(headers, close: close, to: response)
        return MHD_queue_response(connection, UInt32(clamping: status), response)
    }

    /// Queues a response whose status has no body (304), with `Content-Length: length` or none.
    ///
    /// Why not a buffer: libmicrohttpd 0.9.75 sends a 304 without its body but with the
    /// `Content-Length` of the buffer, so an empty one says `Content-Length: 0`, a lie RFC 9110
    /// §8.6 forbids (the 200's body is not empty), and 0.9.75 has no flag to leave the field
    /// out. A callback response of size `length` makes MHD state the 200's length (the reader is
    /// never called: MHD sends no body with a 304). Without a length, the response is unframed
    /// (``cmhd_response_unframed``): no `Content-Length`, and the connection closes after it.
    static func queueOmitted(
        length: Int?, status: Int, headers: HTTPHeaders, close: Bool, on connection: OpaquePointer
    ) -> MHD_Result {
        let size = length.map { UInt64(clamping: max($0, 0)) } ?? UInt64.max
        // The block size is the buffer MHD allocates with the response; nothing is ever read into it.
        guard let response = MHD_create_response_from_callback(size, 64, endOfStreamReader, nil, nil) else { return .NO }
        defer { MHD_destroy_response(response) }
        if length == nil { guard cmhd_response_unframed(response) != 0 else { return .NO } }
        addHeaders(headers, close: close, to: response)
        return MHD_queue_response(connection, UInt32(clamping: status), response)
    }

    /// Queues a streamed body of unknown length (sent chunked), read through `streamReader`.
    /// The retained stream is released by `streamFreed` when MHD is done with the response.
    static func queueStream(
        _ stream: ResponseStream, status: Int, headers: HTTPHeaders, core: ServerCore, on connection: OpaquePointer
    ) -> MHD_Result {
        let handle = ConnectionHandle(pointer: connection, waker: core.waker)
        let box = Unmanaged.passRetained(StreamBox(stream: stream, core: core, connection: handle)).toOpaque()
        // MHD_SIZE_UNKNOWN does not import; it is UINT64_MAX. The block size is the buffer MHD
        // allocates (zeroed) per response, used only for HTTP/1.0 (unchunked) clients: chunked
        // answers are read into the connection's pool. 512 instead of 4096 saves 3.5 KiB per
        // idle event stream (bench/README.md, SSE fan-out).
        guard let response = MHD_create_response_from_callback(UInt64.max, 512, streamReader, box, streamFreed) else {
            Unmanaged<StreamBox>.fromOpaque(box).release()
            core.streamReleased(stream)
            return .NO
        }
        defer { MHD_destroy_response(response) }
        addHeaders(headers, close: false, to: response)
        return MHD_queue_response(connection, UInt32(clamping: status), response)
    }

    /// The bytes of a complete response with `Connection: close`, for the answers the server
    /// writes to a socket itself (``RawAnswer``, ``AnswerOnSocket``). A streamed body is left
    /// out; `headOnly` (the answer to HEAD) states the body's length and leaves the body out,
    /// as libmicrohttpd does; a 304 states only the length the 200 would have, when known.
    static func serialized(_ response: HTTPResponse, headOnly: Bool = false) -> [UInt8] {
        let body: [UInt8], length: Int?
        switch response.body {
        case _ where response.prepared != nil: (body, length) = (response.prepared?.bytes ?? [], response.prepared?.count)
        case .bytes where response.status == 304: (body, length) = ([], nil)
        case .bytes(let bytes): (body, length) = (bytes, bytes.count)
        case .omitted(let representationLength): (body, length) = ([], representationLength)
        case .stream: (body, length) = ([], 0)
        }
        var text = "HTTP/1.1 \(response.status) \(reasonPhrase(response.status))\r\n"
        for (name, value) in response.headers {
            let lowered = name.lowercased()
            guard lowered != "content-length", lowered != "connection", lowered != "transfer-encoding" else { continue }
            // Field text comes from the application; keep line breaks out of the head.
            guard !name.utf8.contains(where: { $0 == 10 || $0 == 13 }), !value.utf8.contains(where: { $0 == 10 || $0 == 13 })
            else { continue }
            text += "\(name): \(value)\r\n"
        }
        if let length { text += "Content-Length: \(length)\r\n" }
        text += "Connection: close\r\n\r\n"
        return Array(text.utf8) + (headOnly ? [] : body)
    }

    /// The reason phrase libmicrohttpd itself sends with `status`, so both kinds of answers agree.
    private static func reasonPhrase(_ status: Int) -> String {
        guard let phrase = MHD_get_reason_phrase_for(UInt32(clamping: status)) else { return "Unknown" }
        return String(cString: phrase)
    }

    static func addHeaders(_ headers: HTTPHeaders, close: Bool, to response: OpaquePointer) {
        for field in headers {
            // withCString lends a native string's own bytes; the implicit conversion would copy them.
            _ = field.name.withCString { name in
                field.value.withCString { value in MHD_add_response_header(response, name, value) }
            }
        }
        if close {
            _ = MHD_add_response_header(response, HeaderName.connection, "close")
        }
    }
}

/// MHD asks for the next bytes of a streamed body. Returning 0 without suspending would make MHD
/// ask again at once (a busy loop), so an empty stream suspends its connection first, and so
/// does one with bytes when the turn's share of sends is spent (``StreamPacer``).
private let streamReader: MHD_ContentReaderCallback = { cls, _, buffer, max in
    guard let cls, let buffer else { return -2 }
    let box = Unmanaged<StreamBox>.fromOpaque(cls).takeUnretainedValue()
    let pacer = box.core.streamPacer
    if !pacer.maySend(after: box.piecesSinceResume), box.stream.hasBytesToSend {
        box.piecesSinceResume = 0
        pacer.yield(box.connection)
        return 0
    }
    switch box.stream.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: max)) {
    case .bytes(let count):
        pacer.sent()
        box.piecesSinceResume += 1
        return count
    case .suspended:
        box.piecesSinceResume = 0
        return 0
    case .endOfStream: return -1  // MHD_CONTENT_READER_END_OF_STREAM
    case .abort: return -2  // MHD_CONTENT_READER_END_WITH_ERROR
    }
}

/// Reports the end of a body at once: the reader of a head-only response (MHD does not call it
/// for HEAD or a 304; if it ever did, nothing would be sent).
let endOfStreamReader: MHD_ContentReaderCallback = { _, _, _, _ in -1 }

/// libmicrohttpd is done with a prepared body: its memory and budget go.
private let preparedFreed: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    Unmanaged<PreparedBody>.fromOpaque(cls).release()
}

private let streamFreed: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    let box = Unmanaged<StreamBox>.fromOpaque(cls).takeRetainedValue()
    box.core.streamReleased(box.stream)
}
