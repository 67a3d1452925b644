import CMicroHTTPD
import Dispatch
import Foundation
import Synchronization

/// A libmicrohttpd daemon in external-epoll mode, driven by one thread of ours that waits on
/// MHD's epoll descriptor and a wake-up eventfd, then runs MHD without blocking.
///
/// Why not MHD's internal polling thread: in 0.9.75 its epoll loop can block forever when exactly
/// 128·k sockets become ready at once (the drain loop re-enters `epoll_wait` with no timeout);
/// our own loop never lets MHD block (bench/README.md measures both). Why not `MHD_run_wait`: it
/// does not wake when another thread resumes a connection, so every deferred answer waited for
/// its timeout; resumes signal our eventfd instead. One thread serves every connection: handlers
/// never block it, storage work runs elsewhere.
final class EventLoop: @unchecked Sendable {
    // Safety: `daemon` is set once in `init`; after `start()` only the loop thread drives it,
    // other threads only resume connections (thread-safe in MHD) or flip the atomics below, and
    // `stop()` frees it only after the loop thread has exited.
    private let daemon: OpaquePointer
    private let quiesceRequested = Atomic<Bool>(false)
    private let listenSocket = Atomic<Int32>(-1)
    private let stopped = Atomic<Bool>(false)
    private let exited = DispatchSemaphore(value: 0)
    /// The kernel thread id of the loop thread, once it runs (for CPU accounting in tests).
    let threadID = Atomic<Int32>(0)
    /// The bound port (the chosen one when configured with port 0).
    let port: Int
    /// Signalled by every resume, and by quiesce and stop; the loop waits on it.
    let waker: LoopWaker
    private let maxWaitMilliseconds: Int32
    private let loopDescriptor: Int32
    private let core: ServerCore

    init(core: ServerCore) throws(HTTPServerError) {
        let configuration = core.configuration
        let address = try SocketAddress(host: configuration.host, port: configuration.port)
        var flags = MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue
        if address.isIPv6 { flags |= MHD_USE_IPv6.rawValue }
        let options = [
            MHD_OptionItem(option: .CONNECTION_LIMIT, value: configuration.maxConnections, ptr_value: nil),
            MHD_OptionItem(option: .PER_IP_CONNECTION_LIMIT, value: configuration.maxConnectionsPerIP, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: configuration.idleTimeoutSeconds, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_MEMORY_LIMIT, value: configuration.connectionMemoryBytes, ptr_value: nil),
            MHD_OptionItem(option: .LISTEN_BACKLOG_SIZE, value: configuration.listenBacklog, ptr_value: nil),
            // MHD's own Host check answers twice on one connection (see HostField): off when the
            // server checks Host itself, the rest of the framing is FramingCheck's.
            MHD_OptionItem(option: .STRICT_FOR_CLIENT, value: core.workarounds.contains(.checkHostItself) ? 0 : 1, ptr_value: nil),
            MHD_OptionItem(option: .END, value: 0, ptr_value: nil),
        ]
        let cls = Unmanaged.passUnretained(core).toOpaque()
        let daemon = options.withUnsafeBufferPointer { items in
            address.withSockaddr { sockaddr in
                cmhd_start_daemon(flags, UInt16(clamping: configuration.port), accessHandler, cls,
                                  requestCompleted, connectionNotified, uriLogged, messageLogged, sockaddr,
                                  items.baseAddress)
            }
        }
        guard let daemon else {
            throw .startFailed(host: configuration.host, port: configuration.port)
        }
        let waker = core.waker
        let loopDescriptor = core.socketWatch.descriptor
        guard waker.descriptor >= 0, loopDescriptor >= 0, cmhd_loop_epoll_add_daemon(loopDescriptor, daemon, waker.descriptor) == 0 else {
            MHD_stop_daemon(daemon)
            throw .startFailed(host: configuration.host, port: configuration.port)
        }
        self.daemon = daemon
        self.core = core
        self.waker = waker
        let wait = configuration.maxEventLoopWait.components
        maxWaitMilliseconds = Int32(clamping: max(1, wait.seconds * 1000 + wait.attoseconds / 1_000_000_000_000_000))
        self.loopDescriptor = loopDescriptor
        self.port = Int(cmhd_bound_port(daemon))
    }

    func start() {
        let thread = Thread { [self] in
            // Named by itself, in Linux's file for it: a name set before start() never reaches
            // the operating system (NavPrefsStore's nameThisThread says more).
            try? "http-event-loop".write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
            loop()
        }
        thread.start()
    }

    private func loop() {
        threadID.store(cmhd_current_thread_id(), ordering: .releasing)
        core.answerTally.loopThread.store(UInt(pthread_self()), ordering: .releasing)
        var closingSince: ContinuousClock.Instant?
        var abandoned = false
        let patience = core.configuration.stopPatience
        let capacity = SocketWatch.reportsPerWait
        var tokens = [UInt64](repeating: 0, count: capacity)
        var events = [UInt32](repeating: 0, count: capacity)
        var timeoutUsed: Int32 = 0
        core.handler.eventLoopStarted(wake: { [waker] in waker.wake() })
        while true {
            if quiesceRequested.exchange(false, ordering: .acquiringAndReleasing) {
                listenSocket.store(MHD_quiesce_daemon(daemon), ordering: .releasing)
            }
            // Bounded wait (maxEventLoopWait, 250 ms by default): a safety net, since resumes,
            // quiesce and stop all signal the waker; costs nothing measurable while idle. No wait
            // when the last turn answered requests on this thread: they go out at once.
            let wait = core.mailbox.answeredOnLoop ? 0 : maxWaitMilliseconds
            core.mailbox.answeredOnLoop = false
            let reports = tokens.withUnsafeMutableBufferPointer { tokens in
                events.withUnsafeMutableBufferPointer { events in
                    let count = cmhd_loop_wait(daemon, loopDescriptor, waker.descriptor, wait,
                                               tokens.baseAddress, events.baseAddress, Int32(capacity), &timeoutUsed)
                    return SocketWatch.reports(tokens: UnsafeBufferPointer(tokens), events: UnsafeBufferPointer(events), count: Int(count))
                }
            }
            // Resumes from now on must signal again; those before are handled by this run.
            waker.rearm()
            // What the sockets the server watches itself reported, then the answers made since
            // the last run: both before MHD reads, which could otherwise read a client's end first.
            if !reports.isEmpty { core.handle(reports) }
            core.resumeAnswered()
            core.streamPacer.startTurn()
            // One turn: MHD serves every ready connection once; the handler may hold what the
            // turn started (a store commits its writes once) until it ends.
            core.handler.turnBegan()
            _ = MHD_run(daemon)
            core.handler.turnEnded()
            // MHD asked to run again at once: a connection it cannot move on, such as a chunk
            // line longer than its buffer, makes it spin (``ServerCore/refuseLongChunkLines``).
            if timeoutUsed == 0 { core.refuseLongChunkLines() }
            // The header and body deadlines MHD does not have (it shuts sockets down; MHD closes
            // them in a coming run).
            core.enforceDeadlines()
            // Streams still waiting for their share of a turn, or to be cut: the next wait
            // returns at once.
            let cutsWait = core.cutAbortedStreams()
            if cutsWait || core.streamPacer.hasWaiting { waker.wake() }
            if core.closing.load(ordering: .acquiring) {
                // Decided here, after a run, where no other thread can suspend a connection:
                // MHD_stop_daemon panics on a suspended one. Requests handed off before
                // `closing` get their own answers (a write in the writer commits in
                // milliseconds), sent before the loop ends; what still waits after
                // `stopPatience` is answered 503, and after twice that the loop ends with what is
                // left unsent.
                let now = ContinuousClock.now
                let since = closingSince ?? now
                closingSince = since
                if core.nothingSuspended,
                   core.requestsInFlight.load(ordering: .relaxed) == 0 || now - since > patience * 2 { break }
                if !abandoned, now - since > patience {
                    core.abandonOutstandingWork()
                    abandoned = true
                }
            }
        }
        core.handler.eventLoopStopped()
        exited.signal()
    }

    /// Stops accepting new connections; open connections are served on.
    func quiesce() {
        quiesceRequested.store(true, ordering: .releasing)
        waker.wake()
    }

    /// Stops the loop and the daemon, closing every connection. Requests that arrive from now on
    /// are answered 503; those already handed off are answered first (see ``ServerCore/closing``).
    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        core.closing.store(true, ordering: .releasing)
        waker.wake()
        exited.wait()
        MHD_stop_daemon(daemon)
        let socket = listenSocket.load(ordering: .acquiring)
        if socket >= 0 { close(socket) }
    }
}
