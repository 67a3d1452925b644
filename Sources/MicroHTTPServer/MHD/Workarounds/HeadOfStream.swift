import CMicroHTTPD

/// Workaround ``MHDWorkarounds/headOfStreamUnframed``: the answer to `HEAD` of a streamed
/// resource, without the chunked terminator libmicrohttpd 0.9.75 would send after its head.
extension MHDResponse {
    /// Queues the head of a streamed response for a `HEAD` request: the handler's status and
    /// fields, no body, and the stream's `start` never runs.
    ///
    /// Why not the stream response itself: MHD 0.9.75 answers HEAD to a chunked response with
    /// the chunked terminator (`0\r\n\r\n`) after the head, which the client reads as the
    /// start of the next response on a keep-alive connection. And a zero-length body would make
    /// MHD send `Content-Length: 0`, which RFC 9110 §8.6 forbids here (the GET body is not
    /// empty). So the head goes out unframed (no length, not chunked), which MHD can only do
    /// by closing the connection after it, as HTTP/1.1 allows.
    static func queueHeadOfStream(status: Int, headers: HTTPHeaders, on connection: OpaquePointer) -> MHD_Result {
        guard let response = MHD_create_response_from_callback(UInt64.max, 512, endOfStreamReader, nil, nil) else {
            return .NO
        }
        defer { MHD_destroy_response(response) }
        guard cmhd_response_unframed(response) != 0 else { return .NO }
        addHeaders(headers, close: false, to: response)
        return MHD_queue_response(connection, UInt32(clamping: status), response)
    }
}
