import CMicroHTTPD
import Synchronization

/// Workaround ``MHDWorkarounds/answerLibraryRefusals``: the refusals libmicrohttpd 0.9.75 makes
/// itself, answered by the server instead, as the handler answers every refusal.
///
/// MHD refuses some requests before any callback of the application sees them: a request line
/// or head larger than the connection's pool (414, 431), a `Cookie` field the pool cannot split
/// (431), an unparsable `Content-Length` (400, 413), a malformed line or chunk (400), an
/// unknown protocol version (505). It answers with a small HTML page, and when the refusal is
/// found after the header fields (cookies, `Content-Length`) it goes on as if nothing happened:
/// it builds the response head a second time (two status lines on the wire) or, with the pool
/// full, closes the connection without an answer.
///
/// MHD logs every such refusal first ("Error processing request (HTTP response code is N ...)"),
/// synchronously, on the event-loop thread, before it queues its page. That message names no
/// connection, so the server finds the one MHD is refusing among those that could be in that
/// state: a request whose header fields MHD has parsed but whose first access-handler call has
/// not come (exact: MHD goes from one to the other without returning); else one still sending
/// its request line or head, or a chunked body; if several could be, the one with unread bytes
/// waiting in its socket (the refused request did not fit). When exactly one remains, the
/// handler's answer is written to its socket and the socket shut down, so MHD's page never
/// goes out. When none or several remain (two clients sending oversized heads at the same
/// moment), MHD's own page goes out, and ``ServerCore/unattributedLibraryRefusals`` counts it.
extension ServerCore {
    /// Notes a message libmicrohttpd logged (event-loop thread); answers a refusal it announces.
    func libraryLogged(_ message: String) {
        defer { lastLibraryMessage = message }
        guard workarounds.contains(.answerLibraryRefusals),
              let status = Self.refusalStatus(in: message) else { return }
        guard let (peer, context) = refusedConnection(status: status) else {
            unattributedLibraryRefusals.add(1, ordering: .relaxed)
            return
        }
        let rejection = Self.rejection(status: status, after: lastLibraryMessage, configuration: configuration)
        let head = context?.headForRefusal ?? HTTPRequestHead(method: "", path: "-", remoteAddress: peer.remoteAddress, rawPath: "-")
        if let context {
            context.phases.answered()
            context.cutOff = true
            bodyBudget.release(context)
        }
        peer.phase = .busy
        RawAnswer.send(handler.response(for: rejection, head: head), on: peer.socket)
    }

    /// The status of "Error processing request (HTTP response code is 431 ('...')). ...".
    static func refusalStatus(in message: String) -> Int? {
        let marker = "Error processing request (HTTP response code is "
        guard message.hasPrefix(marker) else { return nil }
        let digits = message.utf8.dropFirst(marker.utf8.count).prefix { $0 >= 0x30 && $0 <= 0x39 }
        return Int(String(decoding: digits, as: UTF8.self))
    }

    /// The connection MHD is refusing, if it can be told (see the type's documentation).
    private func refusedConnection(status: Int) -> (PeerInfo, RequestContext?)? {
        var parsed: [(PeerInfo, RequestContext?)] = []
        var receiving: [(PeerInfo, RequestContext?)] = []
        for peer in deadlines.openPeers where peer.socket >= 0 {
            if let context = peer.request {
                switch context.phases.phase {
                case .awaitingHeaders:
                    if cmhd_request_header_size(context.connection.pointer) > 0 {
                        parsed.append((peer, context))
                    } else {
                        receiving.append((peer, context))
                    }
                case .receiving where context.phases.framing == .chunked:
                    receiving.append((peer, context))
                default:
                    continue
                }
            } else if case .headers = peer.phase {
                receiving.append((peer, nil))  // between requests: its request line may be the one
            }
        }
        if parsed.count == 1 { return parsed[0] }
        if receiving.count == 1 { return receiving[0] }
        let withUnreadBytes = receiving.filter { cmhd_pending_bytes($0.0.socket) > 0 }
        return withUnreadBytes.count == 1 ? withUnreadBytes[0] : nil
    }

    /// The refusal of the server's own vocabulary for MHD's status (and the message before it).
    static func rejection(status: Int, after previous: String, configuration: ServerConfiguration) -> HTTPRejection {
        switch status {
        case 414: return .uriTooLong(limit: configuration.maxTargetBytes)
        case 431: return .headersTooLarge(limit: configuration.maxHeaderBytes)
        case 413: return .payloadTooLarge(limit: configuration.maxBodyBytes)
        case 505: return .httpVersionNotSupported
        default:
            if previous.contains(HeaderName.contentLength) { return .invalidContentLength }
            if previous.contains(HeaderName.host) { return .invalidHost }
            if previous.lowercased().contains("chunk") { return .malformedChunkedBody }
            return .malformedHeaderSection
        }
    }
}
