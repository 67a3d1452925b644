import Dispatch
import Foundation
import NavPrefsCore
import NavPrefsStore
import Synchronization
import Testing
@testable import NavPrefsSQLite

/// The WAL syncer wakes a turn that kept its transaction open across a flush
/// (``WALSyncer/holdForFlush()``). Its wake-up closure was kept directly in a `Mutex`: each
/// `withLock { $0 }` wrapped it in two more reabstraction thunks, so every wake ran two frames
/// deeper than the one before (a leak, and in time a stack overflow; 127-frame stacks in a
/// profile of FULL writes at c = 16).
@Suite("The WAL syncer's wake-up")
struct WALSyncerWakeTests {
    @Test("the wake-up runs at the same stack depth at every flush, however many came before")
    func wakeDepthStaysConstant() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("navprefs-wake-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let walPath = directory.appendingPathComponent("db.sqlite-wal").path
        #expect(FileManager.default.createFile(atPath: walPath, contents: Data()))

        let syncer = WALSyncer()
        try syncer.start(walPath: walPath, feed: EventFeed())
        defer { syncer.close() }
        let depths = Mutex<[Int]>([])
        let woken = DispatchSemaphore(value: 0)
        syncer.wakeTurns {
            depths.withLock { $0.append(Thread.callStackSymbols.count) }
            woken.signal()
        }
        let profile = try ProfileName("ana")
        for round in 1...60 {
            syncer.holdingFlushes {
                syncer.release(events: [LoggedEvent(id: Int64(round), profile: profile, type: .counter, data: "{}", timestamp: 0)],
                               answering: [])
                // The thread has taken the release and waits for the hold: a flush is under way.
                for _ in 0..<5_000 where !syncer.isFlushing { usleep(1_000) }
                #expect(syncer.holdForFlush(), "round \(round): a flush is under way, so the turn waits for it")
            }
            #expect(woken.wait(timeout: .now() + 5) == .success, "round \(round): woken once the flush is done")
        }
        let seen = depths.withLock { $0 }
        #expect(seen.count == 60)
        #expect(Set(seen).count == 1, "stack depths of the wake-ups: \(seen)")
    }
}
