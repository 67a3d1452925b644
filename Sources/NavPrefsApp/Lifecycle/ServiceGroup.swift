public import NavPrefsHTTPAPI
import Synchronization

/// A long-lived part of the service: the log flusher, the store, authentication, event
/// delivery, the HTTP server, readiness. A ``ServiceGroup`` starts the parts in order and stops
/// them in reverse, so each part can rely on those before it while it runs and while it stops.
public protocol ServicePart: Sendable {
    /// The part's name in log lines.
    var name: String { get }
    /// Acquires what the part needs and starts its threads; returns once the part serves.
    func start() async throws
    /// Work of the part that is a task rather than a thread (the HTTP server's deferred
    /// requests, the token refresh): runs from when every part has started until the part is
    /// stopped or the task is cancelled.
    func run() async
    /// Releases what ``start()`` acquired. The parts started after this one have stopped.
    func stop() async
}

extension ServicePart {
    public func run() async {}
}

/// Starts parts in order, runs them until a shutdown is requested, and stops them in reverse
/// order. A shutdown requested during start-up (a SIGTERM while the store migrates) lets the
/// part being started finish starting, starts no other, and stops those that started.
public final class ServiceGroup: Sendable {
    private let parts: [any ServicePart]
    private let shutdown: ShutdownSignal
    private let logger: Logger
    private let started = Mutex<[any ServicePart]>([])

    public init(_ parts: [any ServicePart], shutdown: ShutdownSignal, logger: Logger) {
        self.parts = parts
        self.shutdown = shutdown
        self.logger = logger
    }

    /// Starts every part in order. When one fails, those started before it are stopped (in
    /// reverse) and its error is thrown, unless a shutdown was requested meanwhile (a SIGTERM
    /// while PostgreSQL did not answer): then the failure is the stop the operator asked for.
    /// Returns early, with the parts started so far, when a shutdown is requested during
    /// start-up; ``run()`` then only stops them.
    public func start() async throws {
        for part in parts {
            guard !shutdown.isRequested else { return }
            do {
                try await part.start()
            } catch {
                await stopStarted()
                if shutdown.isRequested { return }
                throw ServicePartError(part: part.name, underlying: error)
            }
            started.withLock { $0.append(part) }
        }
    }

    /// Runs the started parts until a shutdown is requested, then stops them in reverse order.
    public func run() async {
        let running = started.withLock { $0 }
        await withDiscardingTaskGroup { group in
            for part in running { group.addTask { await part.run() } }
            await shutdown.wait()
            await stopStarted()
            group.cancelAll()
        }
    }

    private func stopStarted() async {
        let parts = started.withLock { started in
            defer { started = [] }
            return started
        }
        for part in parts.reversed() {
            logger.debug("stopping", ["part": .string(part.name)])
            await part.stop()
        }
    }
}

/// A part that could not start, and why.
public struct ServicePartError: Error, CustomStringConvertible {
    public let part: String
    public let underlying: any Error

    public var description: String { "\(part): \(underlying)" }
}
