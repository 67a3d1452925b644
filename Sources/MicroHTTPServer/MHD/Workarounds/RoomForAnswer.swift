import CMicroHTTPD

/// Whether a request's head leaves room, in libmicrohttpd's per-connection pool
/// (``ServerConfiguration/connectionMemoryBytes``), for the head of its answer.
///
/// MHD 0.9.75 keeps everything of a request in one fixed pool: the head as received, a 64-byte
/// record per header field, query argument and cookie (it splits `Cookie` into one record per
/// cookie, plus a copy of the field), and then the head of the response it builds. When the
/// request took nearly all of it, building the response head fails and MHD closes the
/// connection without a word (the fuzzer's shapes "at the edge of the pool"; a browser holding
/// many cookies for the host). So a request whose records leave less than ``answerRoom`` is
/// refused here, before the handler, with 431, written to the socket directly (there is no
/// room to queue it either).
enum RoomForAnswer {
    /// Bytes the head of any answer of the server needs at most: the status line, `Date`,
    /// `Content-Length`, `Connection`, and the application's fields (an echoed `X-Request-ID`
    /// of 128 bytes, CORS, `ETag`, `Location`, `Cache-Control`...).
    static let answerRoom = 1_536
    /// What MHD allocates per header field, query argument and cookie: its record (56 bytes)
    /// rounded to the pool's 16-byte alignment.
    static let recordBytes = 64

    /// The refusal for a head that leaves too little room, or `nil`.
    static func refusal(of connection: OpaquePointer, headers: HTTPHeaders, configuration: ServerConfiguration) -> HTTPRejection? {
        let headSize = cmhd_request_header_size(connection), records = Int(cmhd_value_count(connection))
        // The copy of `Cookie` is at most the head's size: with that much room to spare, no need
        // to look for the field (the common case, a request well inside the pool).
        if configuration.connectionMemoryBytes - estimatedUse(headSize: headSize, records: records, cookieFieldBytes: headSize) >= answerRoom {
            return nil
        }
        let used = estimatedUse(headSize: headSize, records: records,
                                cookieFieldBytes: headers.values(for: HeaderName.cookie).reduce(0) { $0 + $1.utf8.count })
        return configuration.connectionMemoryBytes - used < answerRoom
            ? .headersTooLarge(limit: configuration.maxHeaderBytes) : nil
    }

    /// The pool bytes a parsed head holds: the head itself, a record per value MHD keeps, the
    /// copy of the `Cookie` field, each allocation rounded to 16 bytes.
    static func estimatedUse(headSize: Int, records: Int, cookieFieldBytes: Int) -> Int {
        func aligned(_ bytes: Int) -> Int { (bytes + 15) / 16 * 16 }
        return aligned(headSize) + records * recordBytes + (cookieFieldBytes > 0 ? aligned(cookieFieldBytes + 1) : 0)
    }
}
