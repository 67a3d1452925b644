import Foundation

/// Seed 001's font settings, written with the server's answer awaited (`profile.font.onServer`).
public struct ServerFont: Sendable {
    let core: ProfileCore

    /// Moves the slider: the server rounds `value` half away from zero and stores it with the
    /// size (value + 17) in one transaction, logging one `refresh`. Every device, this one
    /// included, gets `doRefreshNotification` once. Answers the stored slider value and size.
    @discardableResult
    public func setSliderValue(_ value: Double, idempotencyKey: String? = nil) async throws(NavPrefsError)
        -> (sliderValue: Double, fontSize: Double) {
        guard value.isFinite else { throw .invalidArgument("the slider value must be finite") }
        let answer = try await core.write("PUT", core.path + "/font", body: .object([.init("sliderValue", .number(value))]),
                                          idempotencyKey: idempotencyKey)
        let body = try answer.json()
        guard let slider = body["sliderValue"]?.doubleValue, let size = body["fontSize"]?.doubleValue,
              let version = body["version"]?.int64Value
        else { throw .invalidResponse("a font answer without sliderValue, fontSize or version") }
        await core.applyAnswer(type: "refresh", data: .object([
            .init("keys", ["sliderValuekey", "fontSizekey"]), .init("sliderValue", .number(slider)), .init("fontSize", .number(size)),
            .init("version", .integer(version)),
        ]))
        return (slider, size)
    }
}
