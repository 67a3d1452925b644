import MicroHTTPServer
import NavPrefsCore
import NavPrefsJSON
import NavPrefsStore

/// `GET /v1/profiles/{profile}/state`: everything a client mirrors of a profile, from one
/// snapshot, with `lastEventId`, the newest change the snapshot includes.
///
/// A client reads this, then opens the event stream with `Last-Event-ID: lastEventId`: every
/// change is in exactly one of the two, none in both, none in neither. The answer's `ETag` is
/// `lastEventId` (every change takes the next id), so `If-None-Match` answers 304 while nothing
/// changed. For each key with a value, `version` is what `If-Match` must name to change it.
struct StateRoutes: RouteCollection {
    let store: any Store

    static let resource = "/v1/profiles/{profile}/state"

    var routes: [Route] { [Route(.get, Self.resource, .profile, .reads, read)] }

    private func read(_ request: APIRequest) throws(APIError) -> APIResult {
        let profile = try request.profile()
        return .reading(.state(of: profile), from: store, version: (.lastEventID(of: profile), request.http)) { state in
            JSONResponse.make(Self.body(state), version: Version(state.lastEventID), request: request.http)
        }
    }

    static func body(_ state: ProfileState) -> JSONObjectBuilder {
        var body = JSONObjectBuilder()
        body.add("profile", state.profile.rawValue)
        body.add("lastEventId", state.lastEventID)
        var preferences = JSONObjectBuilder()
        preferences.add("values", JSONValue.object(JSONObject(state.slots.compactMap { slot in
            guard let value = slot.value, let version = slot.version else { return nil }
            return (slot.key.rawValue, .object(["value": value, "source": .string(slot.source.rawValue), "version": .integer(version.rawValue),
                                                "lastChange": LastChangeJSON.value(slot.lastChange)]))
        })))
        preferences.add("version", state.preferences.version.rawValue)
        body.add("preferences", json: preferences.json)
        var defaults = JSONObjectBuilder()
        defaults.add("values", JSONValue.object(state.preferences.registered))
        defaults.add("version", state.preferences.defaultsVersion.rawValue)
        defaults.add("lastChange", LastChangeJSON.value(state.preferences.defaultsChange))
        body.add("defaults", json: defaults.json)
        var counter = JSONObjectBuilder()
        counter.add("value", state.counter.counter.value)
        counter.add("stringValue", state.counter.counter.stringValue)
        counter.add("version", state.counter.version.rawValue)
        counter.add("lastChange", LastChangeJSON.value(state.counterChange))
        body.add("counter", json: counter.json)
        var font = JSONObjectBuilder()
        font.add("sliderValue", state.font.settings.sliderValue)
        font.add("fontSize", state.font.settings.fontSize)
        font.add("effectiveFontSize", state.font.settings.effectiveFontSize)
        font.add("version", state.font.version.rawValue)
        font.add("lastChange", LastChangeJSON.value(state.fontChange))
        body.add("font", json: font.json)
        body.add("sessions", JSONValue.array(state.sessions.map(SessionJSON.summary)))
        return body
    }
}
