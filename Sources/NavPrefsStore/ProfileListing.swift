public import NavPrefsCore

/// One line of the list of profiles an admin reads: enough to pick a profile and to see whether
/// it is in use, without reading any of its values.
public struct ProfileSummary: Sendable, Hashable {
    public let name: ProfileName
    /// When its first write created it, in milliseconds since 1970 by the database's clock.
    public let createdAt: Int64
    /// The newest event id the profile issued: 0 while nothing was ever written (`default`).
    public let latestEventID: Int64
    /// Every byte it holds: its values, registered defaults, sessions and idempotency records
    /// (what its quota counts, ``StoreLimits/profileQuotaBytes``) and its event log.
    public let storageBytes: Int
    /// Of ``storageBytes``, its event log's (bounded by ``StoreLimits/maxEventLogBytes``).
    public let eventLogBytes: Int

    public init(name: ProfileName, createdAt: Int64, latestEventID: Int64, storageBytes: Int = 0, eventLogBytes: Int = 0) {
        self.name = name
        self.createdAt = createdAt
        self.latestEventID = latestEventID
        self.storageBytes = storageBytes
        self.eventLogBytes = eventLogBytes
    }
}

/// What one profile holds, for `/metrics`.
public struct ProfileStorage: Sendable, Hashable {
    public let profile: ProfileName
    /// Every byte it holds (see ``ProfileSummary/storageBytes``).
    public let bytes: Int
    /// Of ``bytes``, its event log's.
    public let eventLogBytes: Int

    public init(profile: ProfileName, bytes: Int, eventLogBytes: Int) {
        self.profile = profile
        self.bytes = bytes
        self.eventLogBytes = eventLogBytes
    }
}

/// One page of profiles, in the byte order of their names, and where the next page starts.
///
/// Pages are keyed by the last name shown, not by an offset, so a profile created or one listed
/// between two requests never shifts the pages: each profile shows on exactly one page.
public struct ProfilePage: Sendable, Hashable {
    public let profiles: [ProfileSummary]
    /// What to pass as `after` for the next page; `nil` on the last page.
    public let next: ProfileName?

    public init(profiles: [ProfileSummary], next: ProfileName?) {
        self.profiles = profiles
        self.next = next
    }
}
