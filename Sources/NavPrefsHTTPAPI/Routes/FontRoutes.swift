import MicroHTTPServer
import NavPrefsCore
import NavPrefsJSON
import NavPrefsStore

/// The font settings of seed 001, semantics F-1..F-7: `GET`/`PUT`/`DELETE /v1/profiles/{profile}/font`.
/// A typed view over the `sliderValuekey` and `fontSizekey` preferences; every accepted change
/// logs exactly one `refresh` event (the seed's `doRefreshNotification`).
struct FontRoutes: RouteCollection {
    let store: any Store

    static let resource = "/v1/profiles/{profile}/font"

    var routes: [Route] {
        [
            Route(.get, Self.resource, .profile, .reads, read),
            Route(.put, Self.resource, .profile, .writes, write),
            Route(.delete, Self.resource, .profile, .writes, reset),
            // Who changed the font settings (both keys: ``KeyHistory``).
            Route(.get, Self.resource + "/history", .profile, .reads) { [store] request throws(APIError) in
                try KeyHistory.read(request, of: HistorySubject.font, store: store)
            },
        ]
    }

    private func read(_ request: APIRequest) throws(APIError) -> APIResult {
        let profile = try request.profile()
        return .reading(.font(of: profile), from: store) { state in
            JSONResponse.make(Self.body(state), version: state.version, request: request.http)
        }
    }

    private func write(_ request: APIRequest) throws(APIError) -> APIResult {
        let profile = try request.profile()
        let body = try JSONBody.object(of: request.http, allowed: ["sliderValue"], required: true) ?? [:]
        guard let value = body["sliderValue"] else { throw APIError(.invalidBody, "The body needs the member 'sliderValue'.") }
        guard let number = value.numericValue else {
            throw APIError(.invalidBody, "'sliderValue' must be a number, not \(value.typeName).")
        }
        let settings: FontSettings
        do {
            settings = try FontSettings.settingSlider(to: number)
        } catch {
            throw APIError(.invalidValue, "\(error.description.prefix(1).uppercased())\(error.description.dropFirst()).",
                           extensions: ["minimum": .number(FontSettings.sliderRange.lowerBound),
                                        "maximum": .number(FontSettings.sliderRange.upperBound)])
        }
        let precondition = ETag.writePrecondition(from: request.http.headers)
        return try IdempotentWrites.run(request, profile: profile, store: store, .font(settings, of: profile, if: precondition),
                                        answer: Self.answer)
    }

    /// `removeObject(forKey:)` for both keys: what a fresh install reads (or the registered
    /// defaults), one `refresh`.
    private func reset(_ request: APIRequest) throws(APIError) -> APIResult {
        let profile = try request.profile()
        let precondition = ETag.writePrecondition(from: request.http.headers)
        return try IdempotentWrites.run(request, profile: profile, store: store, .resetFont(of: profile, if: precondition),
                                        answer: Self.answer)
    }

    /// A write's answer: the settings after it and its refresh event's id.
    private static func answer(_ change: FontChange) -> HTTPResponse {
        var body = Self.body(change.state)
        body.add("eventId", change.eventID)
        return JSONResponse.make(body, version: change.state.version)
    }

    private static func body(_ state: FontState) -> JSONObjectBuilder {
        var body = JSONObjectBuilder()
        body.add("profile", state.profile.rawValue)
        body.add("sliderValue", state.settings.sliderValue)
        body.add("fontSize", state.settings.fontSize)
        body.add("effectiveFontSize", state.settings.effectiveFontSize)
        body.add("version", state.version.rawValue)
        return body
    }
}
