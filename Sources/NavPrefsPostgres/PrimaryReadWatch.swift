import Dispatch
import Synchronization

/// Whether the primary's reads are stuck: some are in flight and none has finished for a while.
///
/// Why: when the primary's machine vanishes without closing its sockets (a partition, a power
/// loss), a call on its connections waits until TCP gives up, about 3 s (see
/// ``PostgresConnection``), and every read queued behind it waits as long. Reads that arrive
/// meanwhile go to a standby at once instead (``PostgresStore/readFallingBack(snapshot:_:)``).
/// Two atomic operations per read; no timer.
final class PrimaryReadWatch: Sendable {
    /// How long reads in flight may go without one finishing before the primary counts as stuck.
    static let stallNanoseconds: UInt64 = 1_000_000_000

    private let inFlight = Atomic<Int>(0)
    private let lastProgress = Atomic<UInt64>(DispatchTime.now().uptimeNanoseconds)

    func begin() {
        // After an idle spell, progress is counted from the first read in flight.
        if inFlight.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue == 0 {
            lastProgress.store(DispatchTime.now().uptimeNanoseconds, ordering: .releasing)
        }
    }

    func end() {
        lastProgress.store(DispatchTime.now().uptimeNanoseconds, ordering: .releasing)
        inFlight.wrappingSubtract(1, ordering: .acquiringAndReleasing)
    }

    var isStalled: Bool {
        guard inFlight.load(ordering: .acquiring) > 0 else { return false }
        let now = DispatchTime.now().uptimeNanoseconds, last = lastProgress.load(ordering: .acquiring)
        return now > last && now - last > Self.stallNanoseconds
    }
}
