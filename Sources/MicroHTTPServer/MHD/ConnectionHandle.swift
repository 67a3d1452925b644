import CMicroHTTPD

/// A libmicrohttpd connection, as far as code off the event-loop thread may touch it.
///
/// Safety: the pointer is only dereferenced by libmicrohttpd. `suspend()` is only called on the
/// event-loop thread (inside a callback), and `resume()` is documented as callable from any
/// thread once the daemon has `MHD_ALLOW_SUSPEND_RESUME`; callers pair each resume with exactly
/// one earlier suspend (MHD forbids resuming a connection that is not suspended).
struct ConnectionHandle: StreamConnection, @unchecked Sendable {
    let pointer: OpaquePointer
    /// Wakes the event loop after a resume from another thread (``resume()``).
    let waker: LoopWaker

    func suspend() { MHD_suspend_connection(pointer) }

    /// Resumes from the event-loop thread, just before it runs MHD: no wake-up needed.
    func resumeOnLoop() { MHD_resume_connection(pointer) }
}
