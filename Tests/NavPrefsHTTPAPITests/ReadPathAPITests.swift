import Foundation
import HTTPTestClient
import MicroHTTPServer
import NavPrefsApp
@testable import NavPrefsSQLite
import Synchronization
import Testing
import StoreTestSupport

/// The path of a read (issue "one hop each way"): on SQLite, a GET of the counter, the font,
/// the preferences, one preference, the defaults, the state or a session is answered on the
/// event loop while the handler runs, its connection never suspended; a light write runs in the
/// loop's turn and is answered when the turn's commit is durable (issue 34). Counted by the
/// server itself (``HTTPServer/answersMadeOffTheLoop``).
@Suite("Read path: reads answered on the event loop", .overSockets("counts the answers made off the event loop's thread, which only the socket server has"))
struct ReadPathAPITests {
    @Test("GETs of every per-profile resource are answered without waiting for another thread; at NORMAL so is an increment, at the end of its turn")
    func readsNeverWait() async throws {
        try await withApp { app in
            #expect(try await app.request("PUT", "/v1/profiles/reader/font", json: #"{"sliderValue": 3}"#).status == 200)
            #expect(try await app.request("PUT", "/v1/profiles/reader/preferences/theme", json: #"{"value": "dark"}"#).status == 201)
            #expect(try await app.request("PUT", "/v1/profiles/reader/defaults", json: #"{"lang": "en"}"#).status == 200)
            let session = try await app.createSession("reader")
            #expect(try await app.request("POST", "/v1/profiles/reader/counter/increment").status == 200)

            let before = app.app.server.answersMadeOffTheLoop
            let paths = ["counter", "font", "preferences", "preferences/theme", "preferences/theme?as=string", "defaults", "state",
                         "sessions", "sessions/\(session)", "sessions/\(session)/navigation-bar", "sessions/\(session)/gestures"]
            for path in paths {
                let response = try await app.request("GET", "/v1/profiles/reader/\(path)")
                #expect(response.status == 200, "GET \(path): \(response.text)")
            }
            // A profile nobody wrote to reads as a fresh suite, also on this path.
            #expect(try await app.request("GET", "/v1/profiles/nobody/font").int("effectiveFontSize") == 17)
            // A counter the cache does not hold is read there too (and fills the cache).
            #expect(try await app.request("GET", "/v1/profiles/nobody/counter").int("value") == 0)
            #expect(app.app.server.answersMadeOffTheLoop == before, "a read waited for another thread")

            #expect(try await app.request("POST", "/v1/profiles/reader/counter/increment").status == 200)
            #expect(app.app.server.answersMadeOffTheLoop == before, "at NORMAL a turn's write is durable at its commit, on the loop")
        }
    }

    @Test("at FULL a light write runs on the loop and the syncer hands it back after its flush; a write that measures the quota runs on the writer; the loop answers both")
    func writesAtFull() async throws {
        try await withApp({ $0.sqliteSynchronous = .full }) { app in
            #expect(try await app.request("POST", "/v1/profiles/full/counter/increment").status == 200)
            let store = try #require(app.app.store as? SQLiteStore)
            let (flushes, before) = (store.syncer.flushes.load(ordering: .relaxed), app.app.server.answersMadeOffTheLoop)
            for step in 1...5 {
                let response = try await app.request("POST", "/v1/profiles/full/counter/increment")
                #expect(try response.int("value") == Int64(step + 1))
            }
            #expect(app.app.server.answersMadeOffTheLoop == before, "each increment handed back by the syncer, answered on the loop")
            #expect(store.syncer.flushes.load(ordering: .relaxed) >= flushes + 5, "one flush at least per increment sent one after the other")
            #expect(try await app.request("PUT", "/v1/profiles/full/preferences/theme", json: #"{"value": "dark"}"#).status == 201)
            #expect(app.app.server.answersMadeOffTheLoop == before, "the writer's write too")
        }
    }

    @Test("a read right after an acknowledged write sees it, on every resource read on the event loop")
    func readYourWrites() async throws {
        try await withApp { app in
            for step in 1...40 {
                let slider = Double(step % 10)
                let written = try await app.request("PUT", "/v1/profiles/ryw/font", json: #"{"sliderValue": \#(slider)}"#)
                #expect(written.status == 200)
                let read = try await app.request("GET", "/v1/profiles/ryw/font")
                #expect(read.header("ETag") == written.header("ETag"), "step \(step)")
                let state = try await app.request("GET", "/v1/profiles/ryw/state")
                #expect(try state.int("lastEventId") == (try written.int("eventId")), "step \(step)")
            }
        }
    }
}
