import Foundation

/// The local mirror of one profile: a real `UserDefaults` suite holding every value the profile
/// shows (stored over registered), so that reads are Foundation's own getters, synchronous and
/// offline; and the mirror's state (versions, sources, defaults, last event id), persisted as
/// one JSON text in a second suite and written after every change.
///
/// The state is the truth: at every load the values suite is rebuilt from it, so a crash
/// between writing the two leaves nothing inconsistent, and the values and the event id they
/// correspond to can never disagree.
final class PreferenceMirror: Sendable {
    let suiteName: String
    private let values: Shared<UserDefaults>
    private let store: Shared<UserDefaults>
    private let state: Locked<MirrorState>
    /// Whether the state changed since it was last persisted (answers of queued writes are
    /// persisted together, by ``flush()``).
    private let dirty = Locked(false)
    private static let stateKey = "mirror"
    #if !canImport(Darwin)
        /// A suite holding one value at a time, for Foundation's getters of a key the values
        /// suite cannot keep apart from another spelling (``foundationRead(_:_:)``).
        private let scratch: Shared<UserDefaults>
        private static let scratchKey = "value"
    #endif

    /// Opens the mirror kept under `suiteName` for `profile` of `server`; a mirror persisted for
    /// another server or profile under that name is discarded.
    /// - Throws: ``NavPrefsError/invalidArgument(_:)`` for a suite name `UserDefaults` refuses
    ///   (the app's bundle identifier, `NSGlobalDomain`).
    init(suiteName: String, server: String, profile: String) throws(NavPrefsError) {
        guard let values = UserDefaults(suiteName: suiteName), let store = UserDefaults(suiteName: suiteName + ".navprefs-state") else {
            throw .invalidArgument("UserDefaults refuses the suite name '\(suiteName)'")
        }
        self.suiteName = suiteName
        self.values = Shared(values)
        self.store = Shared(store)
        #if !canImport(Darwin)
            guard let scratch = UserDefaults(suiteName: suiteName + ".navprefs-exact") else {
                throw .invalidArgument("UserDefaults refuses the suite name '\(suiteName)'")
            }
            self.scratch = Shared(scratch)
        #endif
        var loaded = MirrorState(server: server, profile: profile)
        if let text = store.string(forKey: Self.stateKey), let json = try? JSON(parsing: text),
           let persisted = MirrorState(persisted: json), persisted.server == server, persisted.profile == profile {
            loaded = persisted
        }
        state = Locked(loaded)
        rebuild(loaded)
    }

    /// Reads the state and, under the same lock, the values suite: what `body` sees is one
    /// moment of the mirror.
    func read<Result>(_ body: (MirrorState, UserDefaults) -> Result) -> Result {
        state.withLock { body($0, values.object) }
    }

    /// Runs Foundation's `getter` for `key` (the getter and the key to ask it for), `nil` when
    /// the profile has no value for `key`. It reads the values suite, but on Linux a suite keeps
    /// one entry for two canonically equivalent keys (`café` NFC and NFD; Apple's compares code
    /// units): for a key the mirror holds another spelling of, it reads a suite holding only
    /// `key`'s value, so each spelling gets its own answer, with Foundation's coercions.
    func foundationRead<T>(_ key: String, _ getter: (UserDefaults, String) -> T) -> T? {
        state.withLock { state in
            guard let value = state.value(forKey: key) else { return nil }
            #if !canImport(Darwin)
                if state.hasCanonicalTwin(of: key) {
                    let suite = scratch.object
                    suite.set(value.propertyListValue, forKey: Self.scratchKey)
                    defer { suite.removeObject(forKey: Self.scratchKey) }
                    return getter(suite, Self.scratchKey)
                }
            #endif
            return getter(values.object, key)
        }
    }

    /// Changes the state with `body`, writes the keys it reports to the values suite, and
    /// persists the state; all under the lock, so readers never see half of it.
    @discardableResult
    func update(_ body: (inout MirrorState) -> MirrorChange) -> MirrorChange {
        state.withLock { state in apply(body, to: &state) }
    }

    /// Persists what ``settle(id:answer:)`` left unpersisted. Losing it to a crash loses
    /// nothing: the outbox no longer holds those writes, but the event stream resumes from the
    /// last persisted position and brings them again (applied once, by version).
    func flush() {
        state.withLock { state in
            guard dirty.withLock({ dirty in defer { dirty = false }; return dirty }) else { return }
            persist(state)
        }
    }

    /// `update`'s work, with the lock held; `persisting: false` leaves the state for ``flush()``.
    private func apply(_ body: (inout MirrorState) -> MirrorChange, to state: inout MirrorState, persisting: Bool = true) -> MirrorChange {
        let before = state
        let change = body(&state)
        guard state != before else { return change }
        guard persisting else {
            for key in change.keys {
                if let value = state.value(forKey: key) { values.object.set(value.propertyListValue, forKey: key) } else { values.object.removeObject(forKey: key) }
            }
            dirty.withLock { $0 = true }
            return change
        }
        for key in change.keys {
            if let value = state.value(forKey: key) {
                values.object.set(value.propertyListValue, forKey: key)
            } else {
                values.object.removeObject(forKey: key)
            }
        }
        persist(state)
        return change
    }

    /// Replaces the whole state (a reload from the server); reports every key whose value or
    /// version differs.
    @discardableResult
    func replace(with new: MirrorState) -> MirrorChange {
        var new = new
        return state.withLock { state in
            new.pending = state.pending
            var change = MirrorChange()
            change.reloaded = true
            let keys = Set(state.keys.keys).union(new.keys.keys).union(state.registered.map { KeyBytes($0.name) })
                .union(new.registered.map { KeyBytes($0.name) })
            for bytes in keys.sorted() {
                let key = bytes.string
                guard state.value(forKey: key) != new.value(forKey: key) || state.keys[bytes] != new.keys[bytes] else { continue }
                change.keys.append(key)
                if MirrorState.fontKeys.contains(key) && state.value(forKey: key) != new.value(forKey: key) { change.refreshed = true }
            }
            state = new
            rebuild(new)
            persist(new)
            return change
        }
    }

    /// Shows queued writes on top of the server's state (the outbox, read at launch).
    func install(pending: [(id: String, effect: WriteEffect)]) {
        state.withLock { state in
            state.pending = pending
            rebuild(state)
        }
    }

    /// Shows one more queued write, at once: the values suite changes, nothing is persisted
    /// (the outbox already holds the write). Reports the keys whose value changed.
    func enqueue(_ effect: WriteEffect, id: String) -> MirrorChange {
        state.withLock { state in
            let keys = effect.keys(registered: [])
            let before = keys.map { state.value(forKey: $0) }
            state.pending.append((id, effect))
            return write(keys: keys, before: before, of: state)
        }
    }

    /// Applies the server's answer to a queued write (`answer`, as `update` does) and drops the
    /// write's effect, in one step, so that readers never see it counted twice or not at all.
    /// `answer` nil: the write was refused; its effect is dropped alone.
    @discardableResult
    func settle(id: String, answer: ((inout MirrorState) -> MirrorChange)?) -> MirrorChange {
        state.withLock { state in
            guard let index = state.pending.firstIndex(where: { $0.id == id }) else {
                guard let answer else { return MirrorChange() }
                return apply(answer, to: &state, persisting: false)
            }
            let keys = state.pending[index].effect.keys(registered: [])
            let before = keys.map { state.value(forKey: $0) }
            let fontBefore = MirrorState.fontKeys.sorted().map { state.value(forKey: $0) }
            state.pending.remove(at: index)
            var change = answer.map { apply($0, to: &state, persisting: false) } ?? MirrorChange()
            change.formUnion(write(keys: keys, before: before, of: state))
            // The write's own `doRefreshNotification` went out when it was made; its answer posts
            // another only if the font now reads otherwise (the server rounded, or another
            // device wrote in between): one notification per change, as the seed expects.
            change.refreshed = MirrorState.fontKeys.sorted().map { state.value(forKey: $0) } != fontBefore
            return change
        }
    }

    /// Writes `keys` whose value differs from `before` to the values suite; reports them.
    private func write(keys: [String], before: [JSON?], of state: MirrorState) -> MirrorChange {
        var change = MirrorChange()
        for (key, old) in zip(keys, before) {
            let value = state.value(forKey: key)
            guard value != old, !change.keys.contains(where: { $0.sameBytes(as: key) }) else { continue }
            change.keys.append(key)
            if MirrorState.fontKeys.contains(key) { change.refreshed = true }
            if let value { values.object.set(value.propertyListValue, forKey: key) } else { values.object.removeObject(forKey: key) }
        }
        return change
    }

    /// Deletes both suites (the app signs out, a test ends).
    func erase() {
        state.withLock { state in
            state = MirrorState(server: state.server, profile: state.profile)
            values.object.removePersistentDomain(forName: suiteName)
            #if !canImport(Darwin)
                scratch.object.removePersistentDomain(forName: suiteName + ".navprefs-exact")
            #endif
            store.object.removePersistentDomain(forName: suiteName + ".navprefs-state")
        }
    }

    /// Writes every value of `state` to the values suite, and nothing else.
    private func rebuild(_ state: MirrorState) {
        values.object.setPersistentDomain(state.merged.mapValues(\.propertyListValue), forName: suiteName)
    }

    /// Writes the state through to disk now: swift-corelibs-foundation writes a suite's file
    /// only when asked (or never, for a process that is killed), and the state must outlive the
    /// process for offline reads and for resuming after the last event applied. (On Apple
    /// platforms `synchronize()` costs next to nothing; the preferences daemon writes anyway.)
    private func persist(_ state: MirrorState) {
        dirty.withLock { $0 = false }
        store.object.set(state.json.jsonText, forKey: Self.stateKey)
        _ = store.object.synchronize()
    }
}

extension JSON {
    /// The value as an app hands it to `UserDefaults.set(_:forKey:)`: `Int`, `Double`, `Bool`,
    /// `String`, arrays and dictionaries of those (a property list). `null` never reaches here:
    /// preferences hold none.
    var propertyListValue: Any {
        switch self {
        case .null: return ""  // unreachable for preference values; a property list has no null
        case .bool(let flag): return flag
        case .integer(let number): return Int(exactly: number).map { $0 as Any } ?? NSNumber(value: number)
        case .number(let number): return number
        case .string(let text): return text
        case .array(let elements): return elements.map(\.propertyListValue)
        case .object(let members):
            var dictionary: [String: Any] = [:]
            for member in members { dictionary[member.name] = member.value.propertyListValue }
            return dictionary
        }
    }
}
