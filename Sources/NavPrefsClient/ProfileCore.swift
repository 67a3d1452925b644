import Foundation

/// What every part of a profile shares: the requests, the mirror, the announcer, the event
/// stream and the sessions that follow it. One per ``NavPrefsProfile``.
final class ProfileCore: Sendable {
    let name: String
    let http: HTTPClient
    let mirror: PreferenceMirror
    let announcer: Announcer
    let stream: EventStream
    let writeRetries: Int
    /// The queued writes, drained in order while started.
    let outbox: Outbox
    /// The observable status, updated on the main actor (where Observation exists).
    let observable = ObservableStatus()
    /// One at a time: a queued write's request and answer, or one stream signal.
    let gate = AsyncGate()
    /// Fulfilled once the mirror holds a state: `.mirror` when an earlier launch left one.
    let firstState = Promise<StateSource>()
    /// The tasks that load the state and follow the stream, and drain the outbox, while started.
    private let runner = Locked<[Task<Void, Never>]>([])
    private let status = Locked(Status())
    /// Whether an update of the observable status is queued on the main actor.
    private let publishing = Locked(false)
    private let eventObservers = Locked<[UUID: AsyncStream<ProfileEvent>.Continuation]>([:])
    private let sessions = Locked<[String: [WeakSession]]>([:])

    struct Status {
        var connection = ConnectionState.stopped
        var lastError: NavPrefsError?
    }

    private struct WeakSession {
        weak var session: RemoteSession?
    }

    /// Set once by ``NavPrefsProfile``: the object change notifications name as their sender.
    let defaults = Locked<RemoteDefaults?>(nil)

    init(name: String, http: HTTPClient, mirror: PreferenceMirror, outbox: Outbox, announcer: Announcer, stream: StreamOptions,
         writeRetries: Int) {
        self.name = name
        self.http = http
        self.mirror = mirror
        self.outbox = outbox
        self.announcer = announcer
        self.stream = EventStream(http: http, profile: name, options: stream)
        self.writeRetries = writeRetries
        mirror.install(pending: outbox.entries.map { ($0.id, $0.effect) })
        if mirror.read({ state, _ in state.loaded }) { firstState.fulfill(.success(.mirror)) }
    }

    var path: String { "/v1/profiles/\(HTTPClient.segment(name))" }

    // MARK: Following the profile

    func start() {
        let started = runner.withLock { runner in
            guard runner.isEmpty else { return false }
            runner = [Task { [self] in await run() }, Task { [self] in await drain() }]
            return true
        }
        if started { setStatus { $0.connection = .connecting } }
    }

    func stop() async {
        let tasks = runner.withLock { runner in defer { runner = [] }; return runner }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        mirror.flush()
        setStatus { $0.connection = .stopped }
    }

    var isConnected: Bool { status.withLock { $0.connection == .connected } }
    var connection: ConnectionState { status.withLock { $0.connection } }
    var lastError: NavPrefsError? { status.withLock { $0.lastError } }

    /// Changes the status, and has the observable one follow on the main actor.
    func setStatus(_ body: (inout Status) -> Void) {
        status.withLock(body)
        publishStatus()
    }

    /// Has the observable status take the library's current one (the latest, whenever the main
    /// actor gets to it): one update queued at a time, however many changes come meanwhile.
    func publishStatus() {
        guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
        guard publishing.withLock({ queued in defer { queued = true }; return !queued }) else { return }
        let observable = observable.status
        Task { @MainActor [self] in
            publishing.withLock { $0 = false }
            let (connection, lastError) = status.withLock { ($0.connection, $0.lastError) }
            observable.update(ProfileStatus.Snapshot(connection: connection, lastError: lastError, pendingWrites: outbox.count))
        }
    }

    /// Loads the state unless a mirror of it was persisted, then follows the stream from the
    /// mirror's last event id until stopped.
    private func run() async {
        if !mirror.read({ state, _ in state.loaded }) {
            await reloadUntilDone()
        }
        await stream.run(lastEventID: { [mirror] in mirror.read { state, _ in state.loaded ? state.lastEventID : nil } },
                         deliver: { [self] signal in await gate.run { await handle(signal) } })
    }

    /// Reads the state again, retrying until it is read or the task is stopped.
    private func reloadUntilDone() async {
        var delay = Duration.milliseconds(500)
        while !Task.isCancelled {
            do {
                try await reload()
                return
            } catch {
                setStatus { $0.lastError = error }
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, stream.options.maxReconnectDelay)
            }
        }
    }

    /// Reads `GET .../state` and makes it the mirror.
    func reload() async throws(NavPrefsError) {
        let answer = try await http.send("GET", path + "/state")
        let state = try MirrorState(server: http.server.absoluteString, profile: name, state: try answer.json())
        let change = mirror.replace(with: state)
        firstState.fulfill(.success(.server))
        await announce(change)
    }

    private func handle(_ signal: StreamSignal) async {
        switch signal {
        case .connected:
            setStatus {
                $0.connection = .connected
                $0.lastError = nil
            }
            outbox.wakeup.wake()  // the server answers again: send what queued up
        case .disconnected(let reason):
            guard !Task.isCancelled else { return }  // stopped: not an outage
            setStatus { status in
                // A drop of an open stream: reconnecting; a failed attempt: offline, and why.
                if status.connection == .connected {
                    status.connection = .connecting
                } else {
                    status.connection = .offline
                    if case .refused? = status.lastError {} else { status.lastError = .transport(reason) }
                }
            }
        case .refused(let error):
            setStatus { $0.lastError = error }
        case .position(let id):
            mirror.update { state in
                state.lastEventID = max(state.lastEventID, id)
                return MirrorChange()
            }
        case .event(let id, let type, let text):
            let data = (try? JSON(parsing: text)) ?? .object([])
            switch type {
            case "reset":
                // The log cannot continue from the mirror's position: read the state again. The
                // stream goes on after the reset's id; the state read now covers at least that.
                await reloadUntilDone()
            case "shutdown":
                break  // the server ends the stream; the reconnect follows
            default:
                // A replay never repeats what the mirror has, but a guard costs nothing.
                guard let id, id > mirror.read({ state, _ in state.lastEventID }) else { return }
                let change = mirror.update { state in state.apply(eventID: id, type: type, data: data) }
                await announce(change)
                // A merge patch made from a version the mirror does not hold: read the state again.
                if change.stale { await reloadUntilDone() }
            }
            // A `shutdown` carries no id of its own (the one in force is the last event's).
            emit(ProfileEvent(id: type == "shutdown" ? nil : id, type: type, data: data))
        }
    }

    // MARK: Announcing

    /// Tells the app what `change` changed: key streams and notifications, then the sessions.
    func announce(_ change: MirrorChange) async {
        guard !change.isEmpty else { return }
        let (changes, font) = describe(change)
        if let defaults = defaults.withLock({ $0 }) {
            await announcer.announce(changes, refreshed: change.refreshed, font: (font.slider, font.size, font.effective),
                                     origin: origin(of: change), sender: defaults)
        }
        for event in change.navigation {
            guard let id = event["session"]?.stringValue else { continue }
            for session in sessions.withLock({ $0[id]?.compactMap(\.session) ?? [] }) { session.follow(event) }
        }
    }

    /// `announce` for a synchronous write (no navigation: sessions are not written that way).
    func announceNow(_ change: MirrorChange) {
        guard !change.isEmpty, let defaults = defaults.withLock({ $0 }) else { return }
        let (changes, font) = describe(change)
        announcer.announceNow(changes, refreshed: change.refreshed, font: (font.slider, font.size, font.effective),
                              origin: origin(of: change), sender: defaults)
    }

    /// Who made `change`, and whether it was this device: its own writes, or an event whose
    /// author is this client (the same token and device name: another process on this device
    /// with the same settings counts as this device). A reload names no author.
    func origin(of change: MirrorChange) -> ChangeOrigin {
        let me = http.author
        if change.local { return ChangeOrigin(author: me, isFromThisDevice: true) }
        return ChangeOrigin(author: change.author, isFromThisDevice: change.author?.isSameWriter(as: me) ?? false)
    }

    /// Posts a conflict or a rejected write.
    func post(_ name: Notification.Name, userInfo: [String: Any]) async {
        guard let defaults = defaults.withLock({ $0 }) else { return }
        await announcer.post(name, sender: defaults, userInfo: userInfo)
    }

    /// What the key streams deliver for `change`, and the font as it reads now.
    private func describe(_ change: MirrorChange) -> ([PreferenceChange], FontSnapshot) {
        let origin = origin(of: change), me = http.author
        return mirror.read { state, values in
            (change.keys.map { key in
                PreferenceChange(key: key, value: state.value(forKey: key), version: state.version(ofKey: key),
                                 author: state.author(ofKey: key, me: me), isFromThisDevice: origin.isFromThisDevice)
            },
             change.refreshed ? FontSnapshot(state, values) : FontSnapshot(slider: 0, size: 0))
        }
    }

    /// Lets `session` follow its `navigation` events.
    func register(_ session: RemoteSession) {
        sessions.withLock { sessions in
            sessions[session.id] = (sessions[session.id] ?? []).filter { $0.session != nil } + [WeakSession(session: session)]
        }
    }

    // MARK: Raw events

    func events() -> AsyncStream<ProfileEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: ProfileEvent.self, bufferingPolicy: .unbounded)
        let id = UUID()
        eventObservers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in _ = self?.eventObservers.withLock { $0.removeValue(forKey: id) } }
        return stream
    }

    private func emit(_ event: ProfileEvent) {
        for continuation in eventObservers.withLock({ Array($0.values) }) { continuation.yield(event) }
    }

    func finishStreams() {
        for continuation in eventObservers.withLock({ Array($0.values) }) { continuation.finish() }
        announcer.finish()
    }

    // MARK: Writes

    /// Sends a write with an idempotency key (`key`, or a new one), retrying it with the same
    /// key when no answer came (the connection broke, the server restarted) or the server was
    /// briefly unavailable (503): the server applies it once however often it arrives.
    func write(_ method: String, _ path: String, body: JSON? = nil, headers: [(String, String)] = [],
               contentType: String = "application/json", idempotencyKey key: String? = nil) async throws(NavPrefsError) -> HTTPAnswer {
        let key = key ?? UUID().uuidString
        var attempt = 0
        while true {
            do {
                return try await http.send(method, path, headers: headers + [("Idempotency-Key", key)], body: body, contentType: contentType)
            } catch {
                let retriable = switch error {
                case .transport: true
                case .refused(let problem): problem.status == 503
                default: false
                }
                guard retriable, attempt < writeRetries, !Task.isCancelled else { throw error }
                attempt += 1
                try? await Task.sleep(for: .milliseconds(250 << min(attempt, 5)))
            }
        }
    }

    /// Applies a write's answer to the mirror (as the event it logged, made by this client) and announces it.
    func applyAnswer(type: String, data: JSON) async {
        let me = http.author
        var change = mirror.update { state in state.apply(eventID: nil, type: type, data: data.authored(by: me)) }
        change.local = true
        await announce(change)
    }
}

/// The font settings as the seed reads them from the mirror's values.
struct FontSnapshot {
    let slider: Double
    let size: Double
    var effective: Double { size > 0 ? size : 17 }

    init(slider: Double, size: Double) {
        self.slider = slider
        self.size = size
    }

    /// What `float(forKey:)` of each font key answers (0 for a key the profile has no value for).
    init(_ state: MirrorState, _ values: UserDefaults) {
        slider = state.value(forKey: "sliderValuekey") == nil ? 0 : Double(values.float(forKey: "sliderValuekey"))
        size = state.value(forKey: "fontSizekey") == nil ? 0 : Double(values.float(forKey: "fontSizekey"))
    }
}

/// One event of the profile's log as the library received it (and `reset`, `shutdown`).
public struct ProfileEvent: Sendable, Hashable {
    /// Its position in the profile's log (`nil` for a `shutdown`).
    public let id: Int64?
    /// `counter`, `refresh`, `preference`, `navigation`, `reset` or `shutdown`.
    public let type: String
    /// Its data, one JSON object.
    public let data: JSON
}
