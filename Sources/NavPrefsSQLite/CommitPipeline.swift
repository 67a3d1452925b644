import NavPrefsCore
import NavPrefsStore

/// What follows a commit on the write connection, whichever thread committed (the event loop's
/// turn, the writer's batch, the writer's maintenance).
///
/// At once, with the connection still held, so in commit order: what later transactions and
/// readers of memory must see (the profiles that exist now, those whose log may need pruning,
/// the counter cache). A read may therefore show a committed write whose flush is still under
/// way, as Redis does with `appendfsync always` (docs/how-it-is-built.md says why).
///
/// Once the commit is durable at the store's durability: its events go to the feed and its
/// writes are answered, in commit order. With ``Durability/normal`` that is at once (the
/// commit is in the OS page cache); with ``Durability/full`` it is after the ``WALSyncer``
/// flushed the log.
final class CommitPipeline: Sendable {
    let feed: EventFeed
    let counters: CounterCache
    /// `nil`: a commit is durable once `COMMIT` returned (``Durability/normal``).
    let syncer: WALSyncer?

    init(feed: EventFeed, counters: CounterCache, syncer: WALSyncer?) {
        self.feed = feed
        self.counters = counters
        self.syncer = syncer
    }

    /// Right after `COMMIT`, with the write connection held: records what `jobs` (and
    /// `effects` of work that answers nobody, such as expired sessions) committed, and returns
    /// the jobs the caller answers once it let go of the connection (``WriteJob/finish()``):
    /// all of them when the commit is durable already, none when the syncer answers them
    /// after its flush.
    func committed(_ jobs: [any WriteJob], effects extra: [CommitEffects] = [], context: WriteContext) -> [any WriteJob] {
        var events: [LoggedEvent] = []
        for effects in jobs.compactMap(\.effects) + extra {
            context.knownProfiles.formUnion(effects.claimedProfiles)
            for event in effects.events { context.profilesWithNewEvents.insert(event.profile) }
            events += effects.events
            switch effects.counterView {
            case .committed(let state)?: counters.committed(state)
            case .profileExists(let profile)?: counters.profileExists(profile)
            case .invalidated(let profile)?: counters.invalidate(profile)
            case nil: break
            }
        }
        if let syncer {
            syncer.release(events: events, answering: jobs)
            return []
        }
        // Published with the connection held: the next commit's events cannot pass these.
        feed.publish(events)
        return jobs
    }
}
