/// What an event log keeps: per profile the newest `count` events, none older than `age`.
/// Subscribers further behind get a `reset` event.
public struct EventRetention: Sendable, Equatable {
    public var count: Int
    public var age: Duration

    public init(count: Int = 1_000, age: Duration = .seconds(7 * 86_400)) {
        self.count = count
        self.age = age
    }
}
