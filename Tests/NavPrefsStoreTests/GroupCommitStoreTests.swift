import Foundation
import NavPrefsCore
import NavPrefsStore
import Testing
import StoreTestSupport

/// Writes that share a commit (SQLite's single writer, PostgreSQL's batches of queued writes):
/// each keeps its own precondition, refusal, answer and events.
@Suite("Store contract: writes that share a commit")
struct GroupCommitStoreTests {
    @Test("200 concurrent increments over 8 profiles, a fifth refused by a stale If-Match: each refusal alone, every accepted one kept once, each profile's events in order",
          arguments: StoreKind.testCases)
    func concurrentWritesWithRefusals(kind: StoreKind) async throws {
        var settings = StoreSettings()
        settings.poolSize = 2  // few connections, so that writes queue up and share transactions
        try await withStore(kind, settings) { store, _ in
            let received = Locked<[LoggedEvent]>([])
            let subscription = store.feed.observe { events in received.withLock { $0 += events } }
            defer { subscription.cancel() }
            let profiles = (0..<8).map { profile("batch\($0)") }
            let results = await withTaskGroup(of: (Int, Result<CounterChange, StoreError>).self) { group in
                for index in 0..<200 {
                    group.addTask {
                        // A version no counter here reaches: refused with 412, whatever the batch.
                        let precondition: WritePrecondition? = index % 5 == 4 ? .version(in: [Version(1_000_000)]) : nil
                        do throws(StoreError) {
                            return (index, .success(try await store.apply(.increment(.one), toCounterOf: profiles[index % 8], if: precondition)))
                        } catch {
                            return (index, .failure(error))
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            for (index, result) in results {
                switch result {
                case .success: #expect(index % 5 != 4, "write \(index) should have been refused")
                case .failure(let error): #expect(index % 5 == 4 && isPreconditionFailed(error),
                                                  "write \(index): \(error)")
                }
            }
            for (number, profile) in profiles.enumerated() {
                let accepted = results.filter { $0.0 % 8 == number && $0.0 % 5 != 4 }.count
                let values = results.filter { $0.0 % 8 == number }.compactMap { try? $0.1.get().state.counter.value }
                #expect(values.sorted() == Array(1...Int64(accepted)), "\(profile.rawValue): each accepted write counted once")
                #expect(try await store.counter(of: profile).counter.value == Int64(accepted))
            }
            let total = results.filter { $0.0 % 5 != 4 }.count
            let deadline = ContinuousClock.now + .seconds(10)
            while received.withLock({ $0.count }) < total && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            let events = received.withLock { $0 }
            #expect(events.count == total, "one event per accepted write, none for a refused one")
            for profile in profiles {
                let ids = events.filter { $0.profile == profile }.map(\.id)
                #expect(ids == Array(1...Int64(ids.count)), "\(profile.rawValue)'s events reach the feed in id order, without gaps")
            }
        }
    }

    private func isPreconditionFailed(_ error: StoreError) -> Bool {
        if case .preconditionFailed = error { return true }
        return false
    }
}
