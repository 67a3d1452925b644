import Foundation
import HTTPTestClient
import Testing

/// The idempotency window holds its promise on a busy profile (issue 32, item 4). Before: with
/// 16 writers on one profile, retries of 484 of 563 acknowledged keys ran again, since a profile
/// kept only its 256 newest records.
@Suite("Idempotency window under concurrent writers")
struct IdempotencyWindowAPITests {
    @Test("16 writers on one profile, 40 keyed increments each: every acknowledged key replays, nothing runs twice",
          .overSockets("concurrent clients on their own connections and threads"))
    func sixteenWriters() async throws {
        try await withApp { app in
            let port = app.port
            let acknowledged = try await TestHTTP.onThreads(16) { writer in
                let connection = try TestConnection(port: port)
                return try (0..<40).compactMap { index -> String? in
                    let key = "w\(writer)-\(index)"
                    let answer = try connection.request("POST", "/v1/profiles/busy/counter/increment", headers: [("Idempotency-Key", key)])
                    return answer.status == 200 ? key : nil
                }
            }.flatMap { $0 }
            #expect(acknowledged.count == 640)
            let counter = try await app.request("GET", "/v1/profiles/busy/counter").int("value")
            #expect(counter == 640)
            var ranAgain: [String] = []
            for key in acknowledged {
                let retry = try await app.request("POST", "/v1/profiles/busy/counter/increment", headers: [("Idempotency-Key", key)])
                if retry.header("Idempotent-Replayed") != "true" { ranAgain.append(key) }
            }
            #expect(ranAgain.isEmpty, "\(ranAgain.count) of \(acknowledged.count) keys ran again: \(ranAgain.prefix(5))")
            #expect(try await app.request("GET", "/v1/profiles/busy/counter").int("value") == 640)
        }
    }
}
