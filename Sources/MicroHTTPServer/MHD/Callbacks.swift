import CMicroHTTPD
import Glibc
import Synchronization

// libmicrohttpd's callbacks. They are file-level `let`s of the C function types that capture
// nothing, and reach the ``ServerCore`` through `cls` (unretained: the server outlives its
// daemon). They must not live in a `main.swift`: top-level code there is @MainActor in Swift 6,
// and a closure defined there traps (SIGILL) when MHD calls it from its own thread.

let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, version, uploadData, uploadDataSize, slot in
    guard let cls, let connection, let url, let method, let version, let uploadDataSize, let slot else { return .NO }
    // The core outlives its daemon (see ServerCore): used without a retain and release per call.
    return Unmanaged<ServerCore>.fromOpaque(cls)._withUnsafeGuaranteedRef {
        $0.handleCall(connection: connection, url: url, method: method, version: version,
                      uploadData: uploadData, uploadDataSize: uploadDataSize, slot: slot)
    }
}

/// MHD's URI log callback: called once per request, as soon as the request line is parsed and
/// before MHD splits the query off and decodes the target. What it returns becomes the
/// request's slot (`*req_cls`), released by `requestCompleted`.
let uriLogged: cmhd_uri_log_callback = { cls, uri, connection in
    guard let cls, let uri, let connection else { return nil }
    return Unmanaged<ServerCore>.fromOpaque(cls)._withUnsafeGuaranteedRef { $0.requestLineReceived(uri, on: connection) }
}

let requestCompleted: MHD_RequestCompletedCallback = { cls, connection, slot, termination in
    guard let cls, let slot else { return }
    Unmanaged<ServerCore>.fromOpaque(cls)._withUnsafeGuaranteedRef {
        $0.requestCompleted(slot, on: connection, completedOK: termination.rawValue == 0)  // MHD_REQUEST_TERMINATED_COMPLETED_OK
    }
}

/// Counts connections, and keeps what is known of each for all its requests (see ``PeerInfo``).
let connectionNotified: MHD_NotifyConnectionCallback = { cls, connection, socketContext, event in
    guard let cls else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    if event.rawValue == 0 {  // MHD_CONNECTION_NOTIFY_STARTED (not imported by name)
        core.openConnections.add(1, ordering: .relaxed)
        if let socketContext, let connection {
            let peer = PeerInfo(connection: connection, id: core.makeID())
            core.deadlines.opened(peer)
            socketContext.pointee = Unmanaged.passRetained(peer).toOpaque()
        }
    } else {
        core.openConnections.subtract(1, ordering: .relaxed)
        if let socketContext, let stored = socketContext.pointee {
            let peer = Unmanaged<PeerInfo>.fromOpaque(stored).takeRetainedValue()
            core.deadlines.closed(peer)
            socketContext.pointee = nil
        }
    }
}

/// libmicrohttpd's own messages (printf-style), handed to the server's error log instead of stderr.
let messageLogged: MHD_LogCallback = { cls, format, arguments in
    guard let cls, let format, let arguments else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    var buffer = [CChar](repeating: 0, count: 512)
    _ = vsnprintf(&buffer, buffer.count, format, arguments)
    let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let message = text.trimmingTrailingNewlines()
    core.messageLog?(message)
    // Before MHD queues a refusal page of its own: the server may answer instead.
    core.libraryLogged(message)
}

extension String {
    fileprivate func trimmingTrailingNewlines() -> String {
        var text = self
        while text.last == "\n" || text.last == "\r" { text.removeLast() }
        return text
    }
}
