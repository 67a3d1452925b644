import Foundation

/// One profile of a NavPrefs server, kept in step locally: what an app holds instead of
/// `UserDefaults.standard` and `NotificationCenter.default` for the settings it shares.
///
/// Writes are local-first: synchronous, in the mirror at once, queued in a durable outbox and
/// sent in order while the profile is started (``pendingWrites``, ``status``).
///
/// ``start()`` reads the profile's state once (or takes the mirror persisted by an earlier
/// launch) and follows its event stream from exactly there: one connection per profile,
/// reconnected with backoff after a network drop or a server restart, resumed with
/// `Last-Event-ID` so that no change is missed or applied twice, reloaded in full when the
/// server's log can no longer continue (`reset`).
public final class NavPrefsProfile: Sendable {
    let core: ProfileCore
    /// The profile's preferences, read like `UserDefaults`.
    public let preferences: RemoteDefaults

    init(core: ProfileCore) {
        self.core = core
        preferences = RemoteDefaults(core: core)
        core.defaults.withLock { $0 = preferences }
    }

    public var name: String { core.name }
    /// Seed 000's counter.
    public var counter: RemoteCounter { RemoteCounter(core: core) }
    /// Seed 001's font settings.
    public var font: RemoteFont { RemoteFont(core: core) }
    /// The profile's navigation sessions.
    public var sessions: RemoteSessions { RemoteSessions(core: core) }

    /// Starts following the profile in the background, and sending its queued writes
    /// (idempotent). Reads answer from the mirror at once: the last known state when offline.
    public func start() { core.start() }

    /// Starts the profile and waits for its first state: the mirror an earlier launch left
    /// (at once), or else the server's (as soon as it answers; a fresh install that is offline
    /// waits until it is not, or until the task is cancelled). Until then getters answer what a
    /// fresh `UserDefaults` suite answers.
    /// - Returns: where the state came from.
    /// - Throws: ``NavPrefsError/cancelled``.
    @discardableResult
    public func ready() async throws(NavPrefsError) -> StateSource {
        core.start()
        return try await core.firstState.value()
    }

    /// The connection, last error and outbox length, observable (`@Observable`, main actor).
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    public var status: ProfileStatus { core.observable.status }
    /// Where the connection stands now (from any thread; ``status`` follows it on the main actor).
    public var connection: ConnectionState { core.connection }
    /// Writes accepted on this device and not yet answered by the server.
    public var pendingWrites: Int { core.outbox.count }

    /// Stops following (the mirror stays, for offline reads and the next start).
    public func stop() async { await core.stop() }

    /// Stops, ends the change streams, and deletes the mirror and the outbox (an app signing
    /// out: queued writes are dropped).
    public func close(erasingMirror: Bool = false) async {
        await core.stop()
        core.finishStreams()
        if erasingMirror {
            core.mirror.erase()
            core.outbox.erase()
        }
    }

    /// Reads the whole state from the server now and makes it the mirror.
    public func reload() async throws(NavPrefsError) { try await core.reload() }

    /// Whether the event stream is connected right now.
    public var isConnected: Bool { core.isConnected }
    /// The id of the last event the mirror has applied (0: none, or not loaded yet).
    public var lastEventID: Int64 { core.mirror.read { state, _ in state.lastEventID } }
    /// Whether the mirror holds the profile's state (from the server, now or at an earlier launch).
    public var isLoaded: Bool { core.mirror.read { state, _ in state.loaded } }
    /// The last error met while following or sending writes (the server could not be reached,
    /// refused the stream, a reload failed); `nil` once the stream is connected again.
    public var lastError: NavPrefsError? { core.lastError }

    /// The profile's events as they arrive (after the mirror applied them), including `reset`
    /// and `shutdown`: what `navprefs-client watch` prints.
    public func events() -> AsyncStream<ProfileEvent> { core.events() }
}
