import Foundation

/// Seed 000's counter, written with the server's answer awaited (`profile.counter.onServer`):
/// each change a single atomic operation on the server, sent at once with an idempotency key.
/// The synchronous ``RemoteCounter`` steps queue instead.
public struct ServerCounter: Sendable {
    let core: ProfileCore
    private static let key = "numIndex"

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
