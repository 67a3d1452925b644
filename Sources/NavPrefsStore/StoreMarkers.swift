/// Names of the markers a store keeps while an operation that must finish is under way (the
/// `store_markers` table): a database carrying one is not served (see ``StoreAccess``).
public enum StoreMarker {
    /// Written by the first transaction of an import, deleted by its last. Its value says what
    /// was being imported and since when, for the message that refuses the database.
    public static let importInProgress = "import-in-progress"
}
