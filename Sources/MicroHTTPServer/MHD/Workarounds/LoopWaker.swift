import CMicroHTTPD
import Glibc
import Synchronization

/// Workaround ``MHDWorkarounds/wakeOnResume``: in external-epoll mode libmicrohttpd 0.9.75 does
/// not wake its daemon when another thread resumes a connection, so every answer made on
/// another thread would wait for the event loop's timeout. Each resume signals the eventfd the
/// loop waits on beside MHD's own descriptors (see `shim.h`).
extension ConnectionHandle {
    /// Resumes from any thread, and wakes the event loop to serve the connection.
    func resume() {
        MHD_resume_connection(pointer)
        waker.wake()
    }
}

/// The eventfd the event loop waits on besides MHD's own descriptors (see `shim.h`).
///
/// Wake-ups are coalesced: between two runs of the loop only the first one writes the eventfd
/// (a publish to ten thousand streams would otherwise make ten thousand system calls).
final class LoopWaker: Sendable {
    /// -1 if the process is out of descriptors; the event loop then refuses to start.
    let descriptor: Int32
    private let signalled = Atomic<Bool>(false)
    /// Off only in tests that show libmicrohttpd's behaviour without the workaround.
    private let enabled: Bool

    init(enabled: Bool = true) {
        descriptor = cmhd_wake_fd_create()
        self.enabled = enabled
    }

    func wake() {
        guard enabled else { return }
        if !signalled.exchange(true, ordering: .acquiringAndReleasing) {
            cmhd_wake_fd_signal(descriptor)
        }
    }

    /// Called by the loop after it woke and before it runs MHD: any resume after this point
    /// signals again, and every resume before it is seen by the coming run.
    func rearm() { signalled.store(false, ordering: .releasing) }

    deinit { if descriptor >= 0 { close(descriptor) } }
}
