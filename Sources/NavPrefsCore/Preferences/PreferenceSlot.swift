/// One key of a profile in the two layers NavPrefs keeps, as UserDefaults searches them: the
/// stored value (the application domain) over the registered default (the registration domain).
public struct PreferenceSlot: Sendable, Hashable {
    /// A value written to the store, and the version that write gave it.
    public struct Stored: Sendable, Hashable {
        public let value: JSONValue
        public let version: Version

        public init(value: JSONValue, version: Version) {
            self.value = value
            self.version = version
        }
    }

    /// Where the value a reader sees comes from.
    public enum Source: String, Sendable {
        case stored, registered, absent
    }

    public let key: PreferenceKey
    public let stored: Stored?
    /// When nothing is stored: the version of the removal that deleted the last stored value.
    public let removedAt: Version?
    public let registered: JSONValue?
    /// The version of the profile's registered defaults (0 until first registered).
    public let defaultsVersion: Version
    /// When and by whom the key's stored value was written, or removed (its tombstone); `nil`
    /// when the store does not know (never written, or written before authors were recorded).
    public let storedChange: LastChange?
    /// The same for the profile's registered defaults.
    public let defaultsChange: LastChange?

    public init(key: PreferenceKey, stored: Stored?, removedAt: Version? = nil, registered: JSONValue?, defaultsVersion: Version,
                storedChange: LastChange? = nil, defaultsChange: LastChange? = nil) {
        self.key = key
        self.stored = stored
        self.removedAt = stored == nil ? removedAt : nil
        self.registered = registered
        self.defaultsVersion = defaultsVersion
        self.storedChange = storedChange
        self.defaultsChange = defaultsChange
    }

    /// The change ``viewVersion`` names, when the store knows it: the stored value's write, else
    /// the later of its removal and the defaults' last change (what readers see came from it).
    public var lastChange: LastChange? {
        if stored != nil { return storedChange }
        if let removedAt, removedAt >= defaultsVersion { return storedChange }
        return defaultsVersion > .initial ? defaultsChange : nil
    }

    /// P-5/P-6: what `object(forKey:)` answers: the stored value, else the registered default.
    public var value: JSONValue? { stored?.value ?? registered }

    public var source: Source {
        if stored != nil { return .stored }
        return registered == nil ? .absent : .registered
    }

    /// The version of what a reader sees (its ETag); `nil` when the key has no value in either
    /// layer, so no representation. See ``viewVersion``.
    public var version: Version? {
        stored != nil || registered != nil ? viewVersion : nil
    }

    /// The newest change that can have altered what readers see of this key: the stored value's
    /// write, else the later of its removal and the last change of the defaults. Versions come
    /// from one per-profile sequence, so this never repeats for different contents; views over
    /// several keys take the newest of theirs.
    public var viewVersion: Version {
        if let stored { return stored.version }
        return max(removedAt ?? .initial, defaultsVersion)
    }
}

/// Everything a profile keeps in its two layers, for `dictionaryRepresentation()`.
public struct PreferenceSnapshot: Sendable, Hashable {
    public let profile: ProfileName
    /// Stored values, by key.
    public let stored: [PreferenceKey: PreferenceSlot.Stored]
    /// Registered defaults, in registration order.
    public let registered: JSONObject
    public let defaultsVersion: Version
    /// The newest change to any value or default of the profile: the ETag of the whole set.
    public let version: Version
    /// When and by whom the registered defaults last changed, when the store knows.
    public let defaultsChange: LastChange?

    public init(profile: ProfileName, stored: [PreferenceKey: PreferenceSlot.Stored], registered: JSONObject,
                defaultsVersion: Version, version: Version, defaultsChange: LastChange? = nil) {
        self.profile = profile
        self.stored = stored
        self.registered = registered
        self.defaultsVersion = defaultsVersion
        self.version = version
        self.defaultsChange = defaultsChange
    }

    /// Every key with a value in either layer, stored values over defaults (P-5), in byte order.
    ///
    /// Keys are sets of ``PreferenceKey``s, which compare by bytes (P-K): a `Set<String>` would
    /// take `café` (NFC) and `café` (NFD) for one key, as Swift's `==` does, and list one of them.
    public var merged: JSONObject {
        var keys = Set(stored.keys)
        for key in registered.keys {
            if let key = try? PreferenceKey(key) { keys.insert(key) }
        }
        return JSONObject(keys.sorted().compactMap { key in
            guard let value = stored[key]?.value ?? registered[key.rawValue] else { return nil }
            return (key.rawValue, value)
        })
    }
}

/// What a typed view reads through its slots.
extension CounterState {
    /// The counter view of the `numIndex` slot: its value as an integer (0 when absent, C-1) and
    /// the slot's view version (0 while nothing was ever stored or registered).
    public init(profile: ProfileName, slot: PreferenceSlot) {
        self.init(profile: profile, counter: Counter(PreferenceGetter.integer(slot.value)), version: slot.viewVersion)
    }
}

/// The font settings of a profile and their version.
public struct FontState: Sendable, Hashable {
    public let profile: ProfileName
    public let settings: FontSettings
    public let version: Version

    public init(profile: ProfileName, settings: FontSettings, version: Version) {
        self.profile = profile
        self.settings = settings
        self.version = version
    }

    /// The font view of the two slots: F-3..F-5 on what they hold; the newer of their versions.
    public init(profile: ProfileName, slider: PreferenceSlot, fontSize: PreferenceSlot) {
        self.init(profile: profile,
                  settings: FontSettings(reading: slider.value, fontSize: fontSize.value),
                  version: max(slider.viewVersion, fontSize.viewVersion))
    }
}
