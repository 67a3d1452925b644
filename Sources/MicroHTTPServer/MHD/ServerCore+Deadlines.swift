import CMicroHTTPD
import Synchronization

/// The header and body deadlines libmicrohttpd does not have (``ConnectionDeadlines`` says
/// which connection is late), carried out on the event-loop thread.
extension ServerCore {
    /// Cuts the connections past their header or body deadline; called by the event loop after
    /// each run of MHD (it checks once a second at most).
    func enforceDeadlines() {
        refuseLongChunkLines()
        deadlines.check(now: .now) { peer, phase in
            if case .body(let context) = phase, case .receiving = context.phases.phase {
                // MHD 0.9.75 accepts no response while a body is arriving: the handler's answer
                // (408, or the refusal found already) goes to the socket directly.
                let rejection = context.phases.bodyDeadlinePassed()
                context.cutOff = true
                bodyBudget.release(context)
                RawAnswer.send(handler.response(for: rejection, head: context.headForRefusal), on: peer.socket)
            }
            cmhd_shutdown_socket(peer.socket)
        }
    }
}
