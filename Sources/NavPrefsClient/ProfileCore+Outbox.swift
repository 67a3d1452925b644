import Foundation

/// Local-first writes: queued in the mirror and the outbox at once, sent in order by ``drain()``.
extension ProfileCore {
    /// Shows `entry`'s effect in the mirror, records it in the outbox (before returning), and
    /// announces what changed, as `UserDefaults.set` does on its caller's thread.
    func enqueue(_ entry: OutboxEntry) -> PendingWrite {
        var change = mirror.enqueue(entry.effect, id: entry.id)
        change.local = true
        let promise: Promise<JSON>
        do {
            promise = try outbox.enqueue(entry)
        } catch {
            mirror.settle(id: entry.id, answer: nil)
            return PendingWrite(refused: error)
        }
        announceNow(change)
        publishStatus()
        return PendingWrite(idempotencyKey: entry.id, promise: promise)
    }

    /// Sends the outbox's writes in order while started: each until the server answers it, the
    /// first retry after a tenth of a second, then backing off to at most a quarter of a second (an
    /// attempt against a server that is down costs one refused connection; a server that is back
    /// gets the queued writes within a second; only while writes are queued), and at once when
    /// the stream connects again or a write is queued.
    func drain() async {
        var failures = 0
        while !Task.isCancelled {
            guard let entry = outbox.first else {
                mirror.flush()
                failures = 0
                await outbox.wakeup.sleep(for: .seconds(3600))
                continue
            }
            let delivered = await gate.run { await send(entry) }
            publishStatus()
            if delivered {
                if failures > 0 { stream.retryNow() }
                failures = 0
            } else {
                failures += 1
                await outbox.wakeup.sleep(for: .milliseconds(min(100 << min(failures - 1, 5), 250)) * Double.random(in: 0.8...1.0))
            }
        }
    }

    /// Sends one queued write and settles it; whether it is settled (answered, or refused for good).
    private func send(_ entry: OutboxEntry) async -> Bool {
        do {
            let answer = try await http.send(entry.method, entry.path, headers: entry.conditions + [("Idempotency-Key", entry.id)],
                                             body: entry.body, contentType: entry.contentType)
            let body = (try? answer.json()) ?? .object([])
            let me = http.author
            var change = mirror.settle(id: entry.id) { state in
                var change = MirrorChange()
                for event in entry.answerEvents(body) {
                    change.formUnion(state.apply(eventID: nil, type: event.type, data: event.data.authored(by: me)))
                }
                return change
            }
            change.local = true
            outbox.complete(entry.id, .success(body))
            await announce(change)
            return true
        } catch {
            switch error {
            case .preconditionFailed:
                return await conflict(entry, error)
            case .refused(let problem) where ![401, 403, 408, 429].contains(problem.status) && problem.status < 500:
                let change = mirror.settle(id: entry.id, answer: nil)
                outbox.complete(entry.id, .failure(error))
                await announce(change)
                await post(RemoteDefaults.writeRejectedNotification, userInfo: [
                    "keys": entry.effect.keys(registered: []), "error": error, "idempotencyKey": entry.id,
                ])
                return true
            default:
                // No answer (offline, the connection broke, the task stopped), or one worth
                // retrying (5xx, 401 until the token is fixed): the write stays first in line.
                if error != .cancelled { setStatus { $0.lastError = error } }
                return false
            }
        }
    }

    /// A `basedOnWhatISaw` write another device overtook: the mirror takes the server's state,
    /// the write is dropped, and one conflict notification names the keys and both values.
    private func conflict(_ entry: OutboxEntry, _ error: NavPrefsError) async -> Bool {
        let state: MirrorState
        do {
            let answer = try await http.send("GET", path + "/state")
            state = try MirrorState(server: http.server.absoluteString, profile: name, state: try answer.json())
        } catch {
            setStatus { $0.lastError = error }
            return false  // sent again later: the same 412, then this again
        }
        var change = mirror.replace(with: state)
        change.formUnion(mirror.settle(id: entry.id, answer: nil))
        outbox.complete(entry.id, .failure(error))
        await announce(change)
        let keys = entry.effect.keys(registered: [])
        let mine = entry.effect.values(for: keys)
        let theirs = mirror.read { state, _ in keys.compactMap { key in state.serverValue(forKey: key).map { (key, $0) } } }
        await post(RemoteDefaults.conflictNotification, userInfo: [
            "keys": keys,
            "mine": Dictionary(mine.map { ($0.0, $0.1.propertyListValue) }, uniquingKeysWith: { _, last in last }),
            "theirs": Dictionary(theirs.map { ($0.0, $0.1.propertyListValue) }, uniquingKeysWith: { _, last in last }),
            "idempotencyKey": entry.id,
        ])
        return true
    }
}

extension WriteEffect {
    /// The values this write meant for `keys` (a removal has none).
    func values(for keys: [String]) -> [(String, JSON)] {
        keys.compactMap { key in apply(toStored: nil, key: key, registered: nil).map { (key, $0) } }
    }
}
