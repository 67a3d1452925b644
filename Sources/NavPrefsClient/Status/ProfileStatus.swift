public import Observation

/// Where a profile's connection stands.
public enum ConnectionState: Sendable, Hashable {
    /// Not started (or stopped).
    case stopped
    /// Started, connecting or reconnecting after a drop.
    case connecting
    /// The event stream is open: changes of other devices arrive within milliseconds.
    case connected
    /// The last attempt to reach the server failed (``ProfileStatus/lastError`` says why); the
    /// library keeps trying, and reads and writes go on against the mirror.
    case offline
}

/// Where a profile's state came from when ``NavPrefsProfile/ready()`` returned.
public enum StateSource: Sendable, Hashable {
    /// The mirror an earlier launch left (possibly behind the server; the stream catches up).
    case mirror
    /// The server, just now.
    case server
}

/// A profile's connection, last error and queued writes, observable: a SwiftUI view that reads
/// them follows them, and so does `withObservationTracking` anywhere else. Updated on the main
/// actor shortly after the library's own state changes (``NavPrefsProfile/connection`` and the
/// other nonisolated properties answer at once, from any thread).
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor @Observable
public final class ProfileStatus {
    public private(set) var connection: ConnectionState = .stopped
    /// The last error met while following the profile or sending its writes (`nil` once the
    /// stream is connected again).
    public private(set) var lastError: NavPrefsError?
    /// Writes accepted on this device and not yet answered by the server (the outbox's length).
    public private(set) var pendingWrites = 0

    /// What the library reports, read on the main actor when an update is due.
    struct Snapshot: Sendable, Equatable {
        var connection: ConnectionState
        var lastError: NavPrefsError?
        var pendingWrites: Int
    }

    nonisolated init() {}

    /// Takes `snapshot`, assigning only what changed (each assignment notifies observers).
    func update(_ snapshot: Snapshot) {
        if connection != snapshot.connection { connection = snapshot.connection }
        if lastError != snapshot.lastError { lastError = snapshot.lastError }
        if pendingWrites != snapshot.pendingWrites { pendingWrites = snapshot.pendingWrites }
    }
}

/// Holds a profile's ``ProfileStatus`` where Observation exists: the library itself runs on
/// macOS 13 and iOS 16, where a stored property cannot have an `@Observable` type.
///
/// Safety (`@unchecked Sendable`): `storage` is set once, in `init`, and a `ProfileStatus` is
/// `Sendable` (main-actor isolated).
final class ObservableStatus: @unchecked Sendable {
    private let storage: AnyObject?

    init() {
        if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) { storage = ProfileStatus() } else { storage = nil }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    var status: ProfileStatus {
        // Set in `init` on every system where this is available.
        storage as? ProfileStatus ?? ProfileStatus()
    }
}
