import CMicroHTTPD
import Glibc
import Synchronization

/// libmicrohttpd's calls for one request, turned into events of the request-phase machine
/// (``RequestPhases``): the request line, each call of the access handler, the header fields.
/// What the machine decides is carried out by the step executor shared with the in-memory
/// transport (``RequestStepExecutor``, over `ServerCore+SocketSteps.swift`). Event-loop thread.
extension ServerCore {
    /// The executor of the machine's steps, over this server's sockets.
    var steps: RequestStepExecutor<ServerCore> { RequestStepExecutor(self) }

    // MARK: - Request line

    /// MHD parsed a request line (see `uriLogged`): creates the request's context, and judges the
    /// target as sent, before MHD splits and decodes it.
    func requestLineReceived(_ uri: UnsafePointer<CChar>, on connection: OpaquePointer) -> UnsafeMutableRawPointer {
        let inspection = TargetInspection.inspect(UnsafeRawBufferPointer(start: uri, count: strlen(uri)),
                                                  maxTargetBytes: configuration.maxTargetBytes,
                                                  maxQueryArguments: configuration.maxQueryArguments,
                                                  workarounds: workarounds)
        if let drop = inspection.argumentsToDrop { UnsafeMutablePointer(mutating: uri)[drop] = 0 }
        let context = RequestContext(connection: ConnectionHandle(pointer: connection, waker: waker),
                                     rawPath: inspection.rawPath, targetRejection: inspection.rejection, limits: limits)
        PeerInfo.of(connection)?.request = context
        requestsInFlight.add(1, ordering: .relaxed)
        return Unmanaged.passRetained(context).toOpaque()
    }

    // MARK: - Access handler

    /// One call of libmicrohttpd's access handler (see `Callbacks.swift`): the first call brings
    /// the header fields (before any body byte is read or `100 Continue` sent), each further
    /// call a piece of the body, the last one none. A connection suspended in a call is called
    /// again, without data, when it is resumed. MHD 0.9.75 accepts a response only on the first
    /// call (it then closes the connection, the body unread) or on the last.
    func handleCall(
        connection: OpaquePointer,
        url: UnsafePointer<CChar>,
        method: UnsafePointer<CChar>,
        version: UnsafePointer<CChar>,
        uploadData: UnsafePointer<CChar>?,
        uploadDataSize: UnsafeMutablePointer<Int>,
        slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        // The URI log callback creates every context; without one there is nothing to go on.
        guard let stored = slot.pointee else { return .NO }
        let context = Unmanaged<RequestContext>.fromOpaque(stored).takeUnretainedValue()
        let size = uploadDataSize.pointee
        uploadDataSize.pointee = 0
        switch context.phases.phase {
        case .awaitingHeaders:
            return headersReceived(context, url: url, method: method, version: version)
        case .admitting:
            return steps.admissionCame(for: context) ?? (context.cutOff ? .NO : .YES)
        case .receiving:
            if size > 0 {
                let piece = UnsafeRawBufferPointer(start: uploadData, count: size)
                return steps.bodyArrived(piece, for: context)
            }
            PeerInfo.of(connection)?.phase = .busy
            bodyBudget.release(context)
            return steps.bodyComplete(for: context)
        case .handling:
            return .YES  // cannot happen: handle runs within one call
        case .waiting:
            return steps.answerCame(for: context) ?? .YES
        case .answered:
            // After an answer written to the socket itself (408, a library refusal), or one that
            // could not be queued: drop it now.
            return context.cutOff ? .NO : .YES
        }
    }

    /// The header fields are in: the transport's own checks, then the application's admission.
    private func headersReceived(
        _ context: RequestContext, url: UnsafePointer<CChar>, method: UnsafePointer<CChar>, version: UnsafePointer<CChar>
    ) -> MHD_Result {
        let connection = context.connection.pointer
        let peer = PeerInfo.of(connection)
        peer?.phase = .busy
        let headers = MHDValues.headers(of: connection)
        let head = HTTPRequestHead(
            method: String(cString: method), path: String(cString: url),
            query: context.targetRejection == nil ? MHDValues.query(of: connection) : [],
            headers: headers, remoteAddress: peer?.remoteAddress, receivedAt: context.receivedAt,
            rawPath: context.rawPath)
        context.isHTTP11 = strcmp(version, "HTTP/1.1") == 0
        let refusal = transportRefusal(context, headers: headers, method: method, version: version)
        if workarounds.contains(.keepRoomForAnswer),
           let tight = RoomForAnswer.refusal(of: connection, headers: headers, configuration: configuration) {
            // No room in the pool to queue any answer, a refusal found already included: it
            // goes to the socket itself.
            let rejection = refusal ?? tight
            _ = context.phases.headersArrived(head, refusal: rejection)
            return answerOnSocket(context, rejection)
        }
        return steps.headersArrived(head, refusal: refusal, for: context)
    }

    /// What the transport refuses before admission (``RequestPhases/transportRefusal``), measured
    /// on libmicrohttpd's parse of the head.
    private func transportRefusal(
        _ context: RequestContext, headers: HTTPHeaders, method: UnsafePointer<CChar>, version: UnsafePointer<CChar>
    ) -> HTTPRejection? {
        let connection = context.connection.pointer
        return RequestPhases.transportRefusal(
            target: context.targetRejection, headerBytes: { cmhd_request_header_size(connection) },
            headerSectionIsWellFormed: { HeaderSectionShape.isWellFormed(of: connection, method: method, version: version) },
            headers: headers, httpVersion: { String(cString: version) }, configuration: configuration)
    }

    /// Writes the handler's answer to `rejection` to the socket itself and cuts the connection
    /// (``RawAnswer``): where MHD could not queue it.
    private func answerOnSocket(_ context: RequestContext, _ rejection: HTTPRejection) -> MHD_Result {
        context.phases.answered()
        context.cutOff = true
        bodyBudget.release(context)
        guard let peer = PeerInfo.of(context.connection.pointer) else { return .NO }
        peer.phase = .busy
        RawAnswer.send(handler.response(for: rejection, head: context.headForRefusal), on: peer.socket)
        return .NO
    }
}
