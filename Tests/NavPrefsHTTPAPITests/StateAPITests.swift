import Foundation
import HTTPTestClient
import Testing
import StoreTestSupport

/// `GET /v1/profiles/{profile}/state`: the whole profile from one snapshot, with the event id
/// a client opens the stream after.
@Suite("The profile state read")
struct StateAPITests {
    @Test("a fresh profile reads as a fresh suite, lastEventId 0")
    func fresh() async throws {
        try await withApp { app in
            let state = try await app.request("GET", "/v1/profiles/nobody/state")
            #expect(state.status == 200)
            #expect(state.header("ETag") == "\"0\"")
            #expect(state.text == """
                {"profile":"nobody","lastEventId":0,"preferences":{"values":{},"version":0},"defaults":{"values":{},"version":0,"lastChange":null},\
                "counter":{"value":0,"stringValue":"0","version":0,"lastChange":null},\
                "font":{"sliderValue":0.0,"fontSize":0.0,"effectiveFontSize":17.0,"version":0,"lastChange":null},"sessions":[]}

                """)
        }
    }

    @Test("values with source and version, defaults, counter, font, sessions; ETag is lastEventId and 304 follows it")
    func whole() async throws {
        try await withApp { app in
            _ = try await app.request("PUT", "/v1/profiles/ana/defaults", json: #"{"theme":"light","volume":0.8}"#)
            _ = try await app.request("PUT", "/v1/profiles/ana/preferences/theme", json: #"{"value":"dark"}"#)
            _ = try await app.request("POST", "/v1/profiles/ana/counter/increment")
            _ = try await app.request("PUT", "/v1/profiles/ana/font", json: #"{"sliderValue":2.5}"#)
            _ = try await app.createSession(body: #"{"root":{"id":"home"},"label":"phone"}"#)
            let state = try await app.request("GET", "/v1/profiles/ana/state")
            #expect(state.header("ETag") == "\"5\"")
            #expect(state.integer(at: "/lastEventId") == 5)
            #expect(state.string(at: "/preferences/values/theme/value") == "dark")
            #expect(state.string(at: "/preferences/values/theme/source") == "stored")
            #expect(state.integer(at: "/preferences/values/theme/version") == 2)
            #expect(state.string(at: "/preferences/values/volume/source") == "registered")
            #expect(state.integer(at: "/preferences/values/volume/version") == 1)
            #expect(state.string(at: "/preferences/values/numIndex/value") == "1")
            #expect(state.integer(at: "/preferences/version") == 4)
            #expect(state.integer(at: "/defaults/version") == 1)
            #expect(state.integer(at: "/counter/value") == 1)
            #expect(state.integer(at: "/font/fontSize") == 20)
            #expect(state.string(at: "/sessions/0/label") == "phone")
            #expect(state.has("/sessions/0/createdAt") && state.has("/sessions/0/updatedAt"))
            let unchanged = try await app.request("GET", "/v1/profiles/ana/state", headers: [("If-None-Match", "\"5\"")])
            #expect(unchanged.status == 304)
            _ = try await app.request("POST", "/v1/profiles/ana/counter/increment")
            #expect(try await app.request("GET", "/v1/profiles/ana/state", headers: [("If-None-Match", "\"5\"")]).status == 200)
        }
    }

    @Test("each value's version is what If-Match needs: a PUT with it is accepted")
    func versionsForIfMatch() async throws {
        try await withApp { app in
            _ = try await app.request("PUT", "/v1/profiles/ana/defaults", json: #"{"volume":0.8}"#)
            let state = try await app.request("GET", "/v1/profiles/ana/state")
            let version = try #require(state.integer(at: "/preferences/values/volume/version"))
            let put = try await app.request("PUT", "/v1/profiles/ana/preferences/volume", headers: [("If-Match", "\"\(version)\"")],
                                            json: #"{"value":0.5}"#)
            #expect(put.status == 200)
        }
    }
}
