/// Preference keys the seeds use, which NavPrefs gives typed views.
public enum WellKnownKey {
    /// The seed's counter (seed 000: `UserPreferences.numIndex`), semantics C-8.
    public static let counter = "numIndex"
}
