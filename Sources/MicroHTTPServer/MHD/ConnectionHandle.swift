import CMicroHTTPD
import Glibc
import Synchronization

/// A libmicrohttpd connection, as far as code off the event-loop thread may touch it.
///
/// Safety: the pointer is only dereferenced by libmicrohttpd. `suspend()` is only called on the
/// event-loop thread (inside a callback), and `resume()` is documented as callable from any
/// thread once the daemon has `MHD_ALLOW_SUSPEND_RESUME`; callers pair each resume with exactly
/// one earlier suspend (MHD forbids resuming a connection that is not suspended).
struct ConnectionHandle: StreamConnection, @unchecked Sendable {
    let pointer: OpaquePointer
    /// Wakes the event loop, which would otherwise notice the resume only at its next timeout
    /// (workaround ``MHDWorkarounds/wakeOnResume``).
    let waker: LoopWaker

    func suspend() { MHD_suspend_connection(pointer) }

    func resume() {
        MHD_resume_connection(pointer)
        waker.wake()
    }

    /// Resumes from the event-loop thread, just before it runs MHD: no wake-up needed.
    func resumeOnLoop() { MHD_resume_connection(pointer) }
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
