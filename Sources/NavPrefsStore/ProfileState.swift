public import NavPrefsCore

/// Everything a client mirrors of a profile, read from one snapshot, and the id of the newest
/// event that snapshot includes (``Store/state(of:)``).
///
/// A client that reads this and then opens the event stream with `Last-Event-ID:
/// lastEventID` has every change exactly once: those up to the id are in the state, those after
/// it come on the stream.
public struct ProfileState: Sendable, Hashable {
    public let profile: ProfileName
    /// The newest event id the snapshot includes (0 for a profile nobody wrote to).
    public let lastEventID: Int64
    /// Every value and default, and the versions of the whole set and of the defaults.
    public let preferences: PreferenceSnapshot
    /// Every key with a value in either layer, as its slot (what a client needs for `If-Match`:
    /// ``PreferenceSlot/version``), sorted by key.
    public let slots: [PreferenceSlot]
    public let counter: CounterState
    public let font: FontState
    public let sessions: [SessionSummary]
    /// The counter's last change (its `numIndex` slot's), when the store knows it.
    public let counterChange: LastChange?
    /// The font settings' last change: the newer of their two keys'.
    public let fontChange: LastChange?

    public init(profile: ProfileName, lastEventID: Int64, preferences: PreferenceSnapshot, slots: [PreferenceSlot],
                counter: CounterState, font: FontState, sessions: [SessionSummary], counterChange: LastChange? = nil,
                fontChange: LastChange? = nil) {
        self.profile = profile
        self.lastEventID = lastEventID
        self.preferences = preferences
        self.slots = slots
        self.counter = counter
        self.font = font
        self.sessions = sessions
        self.counterChange = counterChange
        self.fontChange = fontChange
    }
}
