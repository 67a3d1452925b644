import Foundation
import HTTPTestClient
import MicroHTTPServer
import NavPrefsApp
import Testing
import StoreTestSupport

/// The path of a read (issue "one hop each way"): on SQLite, a GET of the counter, the font,
/// the preferences, one preference, the defaults, the state or a session is answered on the
/// event loop while the handler runs, its connection never suspended; a write waits for the
/// writer. Counted by the server itself (``HTTPServer/answersMadeOffTheLoop``).
@Suite("Read path: reads answered on the event loop", .overSockets("counts the answers made off the event loop's thread, which only the socket server has"))
struct ReadPathAPITests {
    @Test("GETs of every per-profile resource are answered without waiting for another thread; a write waits for the writer")
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
            #expect(app.app.server.answersMadeOffTheLoop == before + 1, "a write is answered by the writer thread")
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
