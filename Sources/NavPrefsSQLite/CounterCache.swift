import NavPrefsCore
import Synchronization

/// The latest counter state of recently used profiles, so hot reads need no storage I/O.
///
/// Correct only for a store that sees every write (one process owns the database). Two rules
/// keep it from ever going back in time:
/// - the writer updates it after each commit, in commit order, before acknowledging (so a
///   client that saw a write's answer reads that write or a later one);
/// - a reader that missed fills it only if no write and no eviction happened since it started
///   reading (the `generation`), and never over a newer version.
final class CounterCache: Sendable {
    enum Entry: Equatable {
        case present(CounterState)
        case absent
    }

    private struct Storage: ~Copyable {
        var entries: [ProfileName: Entry] = [:]
        /// Bumped by every eviction, so a reader's fill that raced one is dropped.
        var generation = 0
    }

    private let storage = Mutex(Storage())
    private let capacity: Int

    init(capacity: Int) { self.capacity = max(1, capacity) }

    func lookup(_ profile: ProfileName) -> Entry? {
        storage.withLock { $0.entries[profile] }
    }

    /// The generation a reader notes before it reads the store.
    var generation: Int { storage.withLock { $0.generation } }

    /// Records a committed state (writer thread, commit order).
    func committed(_ state: CounterState) {
        storage.withLock { storage in
            evictIfFull(&storage)
            storage.entries[state.profile] = .present(state)
        }
    }

    /// Forgets `profile` (its state changed in a way the writer does not compute), and makes any
    /// read in flight drop its fill.
    func invalidate(_ profile: ProfileName) {
        storage.withLock { storage in
            storage.entries[profile] = nil
            storage.generation += 1
        }
    }

    /// The profile exists now (a write created it): an `absent` entry would keep answering 404,
    /// so it is dropped, and reads in flight that found nothing drop their fill.
    func profileExists(_ profile: ProfileName) {
        storage.withLock { storage in
            guard case .absent? = storage.entries[profile] else { return }
            storage.entries[profile] = nil
            storage.generation += 1
        }
    }

    /// Records what a reader found, unless the cache changed under it.
    func fill(_ profile: ProfileName, with entry: Entry, readAt generation: Int) {
        storage.withLock { storage in
            guard storage.generation == generation else { return }
            switch (storage.entries[profile], entry) {
            case (nil, _):
                evictIfFull(&storage)
                storage.entries[profile] = entry
            case (.absent?, .present), (.present?, .present):
                if case .present(let cached)? = storage.entries[profile], case .present(let found) = entry,
                   cached.version >= found.version { return }
                storage.entries[profile] = entry
            case (_, .absent):
                return  // a cached state is never replaced by "absent": profiles are not deleted
            }
        }
    }

    /// Drops everything when full: simple, and safe with the generation rule above.
    private func evictIfFull(_ storage: inout Storage) {
        guard storage.entries.count >= capacity else { return }
        storage.entries.removeAll(keepingCapacity: true)
        storage.generation += 1
    }
}
