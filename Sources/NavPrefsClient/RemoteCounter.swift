import Foundation

/// Seed 000's counter (`numIndex`, a base-10 string), as typed calls.
///
/// The seed's `UserPreferences.shared.numIndex` reads `string(forKey: "numIndex") ?? "0"`;
/// ``stringValue`` is exactly that, from the mirror. Changes are single atomic operations on
/// the server (no read-modify-write, no overflow: 409 at the edge of Int64), so two devices
/// pressing "+" at once both count.
public struct RemoteCounter: Sendable {
    let core: ProfileCore
    private static let key = "numIndex"

    /// The counter as the seed reads it: the stored string, `"0"` when there is none.
    public var stringValue: String { RemoteDefaults(core: core).string(forKey: Self.key) ?? "0" }

    /// The counter as a number (`integer(forKey: "numIndex")`).
    public var value: Int { RemoteDefaults(core: core).integer(forKey: Self.key) }

    /// Adds `step` (at least 1). Answers the new value.
    @discardableResult
    public func increment(by step: Int64 = 1, idempotencyKey: String? = nil) async throws(NavPrefsError) -> Int64 {
        try await send("increment", body: step == 1 ? nil : .object([.init("by", .integer(step))]), idempotencyKey: idempotencyKey)
    }

    /// Subtracts `step` (at least 1). Answers the new value.
    @discardableResult
    public func decrement(by step: Int64 = 1, idempotencyKey: String? = nil) async throws(NavPrefsError) -> Int64 {
        try await send("decrement", body: step == 1 ? nil : .object([.init("by", .integer(step))]), idempotencyKey: idempotencyKey)
    }

    /// Sets the counter to 0 (the seed's "clear").
    @discardableResult
    public func reset(idempotencyKey: String? = nil) async throws(NavPrefsError) -> Int64 {
        try await send("reset", body: nil, idempotencyKey: idempotencyKey)
    }

    /// Sets the counter to `value`, if nobody changed it since the version the mirror knows.
    @discardableResult
    public func set(_ value: Int64, idempotencyKey: String? = nil) async throws(NavPrefsError) -> Int64 {
        let version = core.mirror.read { state, _ in state.version(ofKey: Self.key) ?? 0 }
        let answer = try await core.write("PUT", core.path + "/counter", body: .object([.init("value", .integer(value))]),
                                          headers: [("If-Match", "\"\(version)\"")], idempotencyKey: idempotencyKey)
        return try await apply(answer, operation: "set")
    }

    private func send(_ operation: String, body: JSON?, idempotencyKey: String?) async throws(NavPrefsError) -> Int64 {
        let answer = try await core.write("POST", core.path + "/counter/" + operation, body: body, idempotencyKey: idempotencyKey)
        return try await apply(answer, operation: operation)
    }

    private func apply(_ answer: HTTPAnswer, operation: String) async throws(NavPrefsError) -> Int64 {
        let body = try answer.json()
        guard let value = body["value"]?.int64Value, let text = body["stringValue"], let version = body["version"]?.int64Value else {
            throw .invalidResponse("a counter answer without value, stringValue or version")
        }
        await core.applyAnswer(type: "counter", data: .object([
            .init("operation", .string(operation)), .init("stringValue", text), .init("version", .integer(version)),
        ]))
        return value
    }
}

/// Seed 001's font settings, as typed calls: a slider whose value the server rounds, and a
/// font size of the rounded slider + 17.
public struct RemoteFont: Sendable {
    let core: ProfileCore

    /// `float(forKey: "sliderValuekey")`, as the seed's `getSliderValue()` reads it.
    public var sliderValue: Float { RemoteDefaults(core: core).float(forKey: "sliderValuekey") }

    /// `float(forKey: "fontSizekey")`.
    public var fontSize: Float { RemoteDefaults(core: core).float(forKey: "fontSizekey") }

    /// The seed's `getFontSize()`: the stored size if it is above 0, else 17.
    public var effectiveFontSize: Double { fontSize > 0 ? Double(fontSize) : 17 }

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
