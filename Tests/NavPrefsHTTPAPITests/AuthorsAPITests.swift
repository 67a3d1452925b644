import Foundation
import HTTPTestClient
import NavPrefsApp
import NavPrefsCore
import NavPrefsHTTPAPI
import NavPrefsStore
import Testing

/// Who changed what (issue 36): every write records its author (the token's id and label, or
/// `open`, and the device the client names), in its event, beside its value, and in the key's
/// history; a device name the service cannot record refuses the write.
@Suite("Authors: who changed what")
struct AuthorsAPITests {
    /// Two devices, each with its own profile token for `ana`, and an admin token.
    struct Devices {
        let phone: (token: String, id: String)
        let tablet: (token: String, id: String)
        let admin: (token: String, id: String)

        func headers(_ device: (token: String, id: String), _ name: String) -> [(String, String)] {
            [("Authorization", "Bearer " + device.token), ("NavPrefs-Device", name)]
        }
    }

    static func devices(_ app: TestApp) async throws -> Devices {
        Devices(phone: try await app.makeToken(profile: "ana", label: "ana's phone"),
                tablet: try await app.makeToken(profile: "ana", label: "kitchen tablet"),
                admin: try await app.makeToken(label: "ops"))
    }

    /// The `author` object of a JSON object (an event's data, a history entry, a last change).
    static func author(_ object: [String: Any]?) -> [String: String]? {
        (object?["author"] as? [String: Any])?.compactMapValues { $0 as? String }
    }

    @Test("two devices change one key: its history lists both, newest first, with their tokens, labels and devices; reads show the last")
    func twoDevicesOneKey() async throws {
        try await withApp { app in
            let devices = try await Self.devices(app)
            let key = "/v1/profiles/ana/preferences/theme"
            #expect(try await app.request("PUT", key, headers: devices.headers(devices.phone, "Ana’s iPhone".percentEncodedDevice),
                                          json: #"{"value":"dark"}"#).status == 201)
            #expect(try await app.request("PUT", key, headers: devices.headers(devices.tablet, "kitchen-ipad"),
                                          json: #"{"value":"light"}"#).status == 200)

            let history = try await app.request("GET", key + "/history", headers: devices.headers(devices.phone, "x"))
            #expect(history.status == 200)
            let page = try history.json()
            let changes = try #require(page["changes"] as? [[String: Any]])
            #expect(changes.map { $0["value"] as? String } == ["light", "dark"])
            #expect(changes.map { $0["eventId"] as? Int } == [2, 1])
            #expect(Self.author(changes[0]) == ["token": devices.tablet.id, "label": "kitchen tablet", "device": "kitchen-ipad"])
            #expect(Self.author(changes[1]) == ["token": devices.phone.id, "label": "ana's phone", "device": "Ana’s iPhone"])
            #expect(page["next"] is NSNull && page["historyBegins"] as? Int == 1 && page["complete"] as? Bool == true)
            #expect(!history.text.contains(devices.phone.token) && !history.text.contains(devices.tablet.token))

            // One at a time: the first page says where the next starts.
            let first = try await app.request("GET", key + "/history?limit=1", headers: devices.headers(devices.admin, "x")).json()
            #expect((first["changes"] as? [[String: Any]])?.map { $0["value"] as? String } == ["light"])
            #expect(first["next"] as? Int == 2)
            let second = try await app.request("GET", key + "/history?limit=1&before=2", headers: devices.headers(devices.admin, "x")).json()
            #expect((second["changes"] as? [[String: Any]])?.map { $0["value"] as? String } == ["dark"])
            #expect(second["next"] is NSNull)

            // The read and the state show the last change and its author.
            let read = try await app.request("GET", key, headers: devices.headers(devices.phone, "x")).json()
            let last = read["lastChange"] as? [String: Any]
            #expect(Self.author(last) == ["token": devices.tablet.id, "label": "kitchen tablet", "device": "kitchen-ipad"])
            #expect((last?["at"] as? String)?.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil)
            let state = try await app.request("GET", "/v1/profiles/ana/state", headers: devices.headers(devices.phone, "x")).json()
            let values = (state["preferences"] as? [String: Any])?["values"] as? [String: Any]
            #expect(Self.author((values?["theme"] as? [String: Any])?["lastChange"] as? [String: Any])?["device"] == "kitchen-ipad")
        }
    }

    @Test("the events carry the author, as JSON pages and on the stream", .overSockets("the event stream is read over TCP (SSEClient)"))
    func eventsCarryAuthors() async throws {
        try await withApp { app in
            let devices = try await Self.devices(app)
            _ = try await app.request("POST", "/v1/profiles/ana/counter/increment", headers: devices.headers(devices.phone, "phone"))
            _ = try await app.request("PUT", "/v1/profiles/ana/font", headers: devices.headers(devices.tablet, "tablet"),
                                      json: #"{"sliderValue":2}"#)
            let page = try await app.request("GET", "/v1/profiles/ana/events",
                                             headers: devices.headers(devices.phone, "x") + [("Accept", "application/json")]).json()
            let events = try #require(page["events"] as? [[String: Any]])
            #expect(events.map { Self.author($0["data"] as? [String: Any])?["device"] } == ["phone", "tablet"])
            #expect(Self.author(events[0]["data"] as? [String: Any])?["token"] == devices.phone.id)

            let stream = try await SSEClient.open(port: app.port, path: "/v1/profiles/ana/events?last_event_id=0",
                                                  headers: [("Authorization", "Bearer " + devices.phone.token)])
            let messages = try await stream.messages { $0.id == "2" }
            let data = try messages.filter { $0.event != nil }.map { try $0.json() }
            #expect(data.map { Self.author($0)?["label"] } == ["ana's phone", "kitchen tablet"])
            // A write after the stream opened, live.
            _ = try await app.request("POST", "/v1/profiles/ana/counter/reset", headers: devices.headers(devices.admin, "ops laptop"))
            let live = try #require(try await stream.messages { $0.event == "counter" }.last)
            #expect(Self.author(try live.json()) == ["token": devices.admin.id, "label": "ops", "device": "ops laptop"])
        }
    }

    @Test("the open mode records `open`, and a write without a device names none")
    func openMode() async throws {
        try await withApp { app in
            _ = try await app.request("POST", "/v1/profiles/ana/counter/increment")
            _ = try await app.request("POST", "/v1/profiles/ana/counter/increment", headers: [("NavPrefs-Device", "kiosk")])
            let history = try await app.request("GET", "/v1/profiles/ana/counter/history").json()
            let changes = try #require(history["changes"] as? [[String: Any]])
            #expect(changes.map { Self.author($0) } == [["token": "open", "device": "kiosk"], ["token": "open"]])
            #expect(changes.map { $0["operation"] as? String } == ["increment", "increment"])
            #expect(changes.map { $0["value"] as? Int } == [2, 1])
        }
    }

    @Test("a device name with control characters, past 64 characters, outside ASCII or badly escaped is refused, and nothing changes",
          arguments: [
              "kitchen\tipad", "line%0Abreak", "bell%07", "del%7F", "c1%C2%85", String(repeating: "x", count: 65),
              String(repeating: "%C3%A9", count: 65), "café", "50%", "%G1", "%E2%80", "%ED%A0%80",
          ])
    func badDeviceNames(name: String) async throws {
        try await withApp { app in
            let response = try await app.request("PUT", "/v1/profiles/ana/preferences/theme", headers: [("NavPrefs-Device", name)],
                                                 json: #"{"value":"dark"}"#)
            #expect(response.status == 400)
            #expect(try response.problemType() == problem("invalid-device-name"))
            #expect(response.text.contains("NavPrefs-Device"))
            #expect(try await app.request("GET", "/v1/profiles/ana/preferences/theme").status == 404)
            #expect(try await app.app.store.eventLogBounds(of: ProfileName("ana")).latest == 0)
        }
    }

    @Test("the longest name, escapes of every length and an empty value are accepted; reads ignore the field")
    func goodDeviceNames() async throws {
        try await withApp { app in
            let names: [(sent: String, recorded: String?)] = [
                (String(repeating: "x", count: 64), String(repeating: "x", count: 64)),
                ("%41%c3%a9%E2%80%99%F0%9F%93%B1 %25", "Aé’📱 %"),
                ("", nil),
            ]
            for (index, name) in names.enumerated() {
                let response = try await app.request("PUT", "/v1/profiles/ana/preferences/k\(index)", headers: [("NavPrefs-Device", name.sent)],
                                                     json: #"{"value":1}"#)
                #expect(response.status == 201, "\(name.sent): \(response.text)")
                let read = try await app.request("GET", "/v1/profiles/ana/preferences/k\(index)", headers: [("NavPrefs-Device", "%G")])
                #expect(Self.author(try read.json()["lastChange"] as? [String: Any])?["device"] == name.recorded)
            }
        }
    }

    @Test("a profile token cannot read another profile's history; an admin can")
    func historyOfAnotherProfile() async throws {
        try await withApp { app in
            let devices = try await Self.devices(app)
            let bob = try await app.makeToken(profile: "bob", label: "bob")
            _ = try await app.request("PUT", "/v1/profiles/bob/preferences/theme", headers: [("Authorization", "Bearer " + bob.token)],
                                      json: #"{"value":"dark"}"#)
            for path in ["/preferences/theme/history", "/counter/history", "/font/history"] {
                let foreign = try await app.request("GET", "/v1/profiles/bob" + path, headers: [("Authorization", "Bearer " + devices.phone.token)])
                #expect(foreign.status == 404, "\(path)")
                #expect(try foreign.problemType() == problem("profile-not-found"))
                #expect(!foreign.text.contains("dark"))
                #expect(try await app.request("GET", "/v1/profiles/bob" + path, headers: [("Authorization", "Bearer " + devices.admin.token)]).status == 200)
            }
        }
    }

    @Test("a key never written has an empty history, not 404; the font keys share the font settings' history; bad paging is 400")
    func emptyAndShared() async throws {
        try await withApp { app in
            let empty = try await app.request("GET", "/v1/profiles/nobody/preferences/never/history")
            #expect(empty.status == 200)
            #expect(empty.text == #"{"profile":"nobody","key":"never","changes":[],"next":null,"historyBegins":1,"complete":true}"# + "\n")
            _ = try await app.request("PUT", "/v1/profiles/ana/font", json: #"{"sliderValue":3}"#)
            _ = try await app.request("PUT", "/v1/profiles/ana/preferences/fontSizekey", json: #"{"value":30}"#)
            let font = try await app.request("GET", "/v1/profiles/ana/font/history").json()
            let viaKey = try await app.request("GET", "/v1/profiles/ana/preferences/sliderValuekey/history").json()
            let changes = try #require(font["changes"] as? [[String: Any]])
            #expect(changes.map { $0["effectiveFontSize"] as? Double } == [30, 20])
            #expect((viaKey["changes"] as? [[String: Any]])?.map { $0["eventId"] as? Int } == [2, 1])
            for query in ["limit=0", "limit=1001", "before=0", "before=x", "limit=-1"] {
                let refused = try await app.request("GET", "/v1/profiles/ana/font/history?" + query)
                #expect(refused.status == 400, "\(query)")
                #expect(try refused.problemType() == problem("invalid-query"))
            }
        }
    }

    @Test("after retention the history says where it begins and that it is not complete")
    func afterRetention() async throws {
        try await withApp({ $0.eventRetentionCount = 3 }) { app in
            for value in 1...6 {
                _ = try await app.request("PUT", "/v1/profiles/ana/preferences/theme", json: "{\"value\":\(value)}")
            }
            _ = try await app.app.store.pruneEventLogIfSQLite()
            let page = try await app.request("GET", "/v1/profiles/ana/preferences/theme/history").json()
            #expect((page["changes"] as? [[String: Any]])?.map { $0["value"] as? Int } == [6, 5, 4])
            #expect(page["historyBegins"] as? Int == 4)
            #expect(page["complete"] as? Bool == false)
            // The last change itself is kept beside the value, whatever the log forgot.
            let read = try await app.request("GET", "/v1/profiles/ana/preferences/theme").json()
            #expect(Self.author(read["lastChange"] as? [String: Any]) == ["token": "open"])
        }
    }

    @Test("admins filter a profile's events by token and by device; a profile token may not")
    func adminFilters() async throws {
        try await withApp { app in
            let devices = try await Self.devices(app)
            _ = try await app.request("POST", "/v1/profiles/ana/counter/increment", headers: devices.headers(devices.phone, "phone"))
            _ = try await app.request("POST", "/v1/profiles/ana/counter/increment", headers: devices.headers(devices.tablet, "tablet"))
            _ = try await app.request("POST", "/v1/profiles/ana/counter/increment", headers: devices.headers(devices.phone, "phone 2"))
            let json = [("Accept", "application/json")]
            func ids(_ query: String, as token: String) async throws -> [Int]? {
                let page = try await app.request("GET", "/v1/profiles/ana/events?" + query,
                                                 headers: [("Authorization", "Bearer " + token)] + json).json()
                return (page["events"] as? [[String: Any]])?.compactMap { $0["id"] as? Int }
            }
            #expect(try await ids("by_token=" + devices.phone.id, as: devices.admin.token) == [1, 3])
            #expect(try await ids("by_device=tablet", as: devices.admin.token) == [2])
            #expect(try await ids("by_device=phone%202&by_token=" + devices.phone.id, as: devices.admin.token) == [3])
            #expect(try await ids("by_token=open", as: devices.admin.token) == [])
            let refused = try await app.request("GET", "/v1/profiles/ana/events?by_device=tablet",
                                                headers: [("Authorization", "Bearer " + devices.phone.token)] + json)
            #expect(refused.status == 403)
            #expect(try refused.problemType() == problem("forbidden"))
            for query in ["by_token=npt_secret", "by_token=", "by_device=", "by_device=" + String(repeating: "x", count: 65), "by_device=a%0Ab"] {
                let bad = try await app.request("GET", "/v1/profiles/ana/events?" + query,
                                                headers: [("Authorization", "Bearer " + devices.admin.token)] + json)
                #expect(bad.status == 400, "\(query)")
                #expect(try bad.problemType() == problem("invalid-query"))
            }
        }
    }

    @Test("an admin's stream filtered by device replays and follows that device's changes only",
          .overSockets("the event stream is read over TCP (SSEClient)"))
    func adminStreamFilter() async throws {
        try await withApp { app in
            let devices = try await Self.devices(app)
            _ = try await app.request("POST", "/v1/profiles/ana/counter/increment", headers: devices.headers(devices.phone, "phone"))
            _ = try await app.request("POST", "/v1/profiles/ana/counter/increment", headers: devices.headers(devices.tablet, "tablet"))
            let stream = try await SSEClient.open(port: app.port, path: "/v1/profiles/ana/events?last_event_id=0&by_device=tablet",
                                                  headers: [("Authorization", "Bearer " + devices.admin.token)])
            let replayed = try await stream.messages { $0.id == "2" }
            #expect(replayed.filter { $0.event != nil }.map(\.id) == ["2"])
            _ = try await app.request("POST", "/v1/profiles/ana/counter/increment", headers: devices.headers(devices.phone, "phone"))
            _ = try await app.request("POST", "/v1/profiles/ana/counter/increment", headers: devices.headers(devices.tablet, "tablet"))
            let live = try await stream.messages { $0.event == "counter" }
            #expect(live.filter { $0.event != nil }.map(\.id) == ["4"])
            #expect(Self.author(try live.last?.json())?["device"] == "tablet")
            let foreign = try await app.request("GET", "/v1/profiles/ana/events?by_device=tablet",
                                                headers: [("Authorization", "Bearer " + devices.phone.token)])
            #expect(foreign.status == 403)
        }
    }
}

extension String {
    /// The name as `NavPrefs-Device` carries it: visible ASCII as itself, the rest as UTF-8 escapes.
    var percentEncodedDevice: String {
        var allowed = CharacterSet(charactersIn: " ")
        allowed.formUnion(CharacterSet(charactersIn: "!\"#$&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~"))
        return addingPercentEncoding(withAllowedCharacters: allowed) ?? self
    }
}
