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

    /// Adds `step` (at least 1), at once in the mirror; queued as a step, so that steps taken
    /// offline on several devices all count.
    @discardableResult
    public func increment(by step: Int64 = 1) -> PendingWrite { queue("increment", step: step) }

    /// Subtracts `step` (at least 1), at once in the mirror; queued as a step.
    @discardableResult
    public func decrement(by step: Int64 = 1) -> PendingWrite { queue("decrement", step: step) }

    /// Sets the counter to 0 (the seed's "clear"), at once in the mirror.
    @discardableResult
    public func reset() -> PendingWrite {
        core.enqueue(OutboxEntry(method: "POST", path: core.path + "/counter/reset", body: nil, effect: .counterReset, policy: .lastWriterWins))
    }

    private func queue(_ operation: String, step: Int64) -> PendingWrite {
        guard step >= 1 else { return PendingWrite(refused: .invalidArgument("a counter step is at least 1")) }
        return core.enqueue(OutboxEntry(method: "POST", path: core.path + "/counter/" + operation,
                                        body: step == 1 ? nil : .object([.init("by", .integer(step))]),
                                        effect: .counterStep(operation == "increment" ? step : -step), policy: .lastWriterWins))
    }

    /// The counter's writes that wait for the server's answer (and throw when it cannot be reached).
    public var onServer: ServerCounter { ServerCounter(core: core) }
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

    /// Moves the slider, at once in the mirror (rounded half away from zero, the size the
    /// rounded value + 17, as the server stores them): `doRefreshNotification` is posted now,
    /// and the write is queued.
    @discardableResult
    public func setSliderValue(_ value: Double) -> PendingWrite {
        guard value.isFinite else { return PendingWrite(refused: .invalidArgument("the slider value must be finite")) }
        let slider = value.rounded(.toNearestOrAwayFromZero)
        return core.enqueue(OutboxEntry(method: "PUT", path: core.path + "/font", body: .object([.init("sliderValue", .number(value))]),
                                        effect: .font(slider: slider, size: slider + 17), policy: .lastWriterWins))
    }

    /// The font's writes that wait for the server's answer (and throw when it cannot be reached).
    public var onServer: ServerFont { ServerFont(core: core) }
}
