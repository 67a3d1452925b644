public import NavPrefsCore

/// The versions of a profile's larger resources, each read alone (one row): what a conditional
/// request (`If-None-Match`) or a `HEAD` of a large profile is answered from, without reading
/// the data (``LoopReading/performOnCallingThread(_:)``).
extension StoreRead where Value == Version {
    /// The version of `profile`'s preferences as a whole (``PreferenceSnapshot/version``).
    public static func preferencesVersion(of profile: ProfileName) -> StoreRead {
        StoreRead(snapshot: false) { transaction in
            guard let row = try transaction.firstRow(.profileVersions, .text(profile.rawValue)) else { return .initial }
            return Version(try row.int64(1))
        }
    }

    /// The version of `profile`'s registered defaults (``DefaultsState/version``).
    public static func defaultsVersion(of profile: ProfileName) -> StoreRead {
        StoreRead(snapshot: false) { transaction in
            guard let row = try transaction.firstRow(.profileVersions, .text(profile.rawValue)) else { return .initial }
            return Version(try row.int64(0))
        }
    }

    /// The id of `profile`'s newest event: the version of its whole state (``ProfileState/lastEventID``).
    public static func lastEventID(of profile: ProfileName) -> StoreRead {
        StoreRead(snapshot: false) { transaction in Version(try TransactionSteps.eventLogBounds(of: profile, in: transaction).latest) }
    }
}
