/// The bounds the service puts on navigation state, so that one session cannot grow without
/// limit in the store, in responses and in events. UIKit has none of these (a stack is bounded
/// by memory); they are ours. Decoding (`init(json:)`) and ``Screen/validate()`` enforce the
/// per-screen ones, ``NavigationStack`` the depth.
public enum NavigationLimits {
    /// Screens on one stack (S-2 refuses a push beyond it, S-10 a longer list). 64 is deeper
    /// than any real app's stack, and keeps a full stack response well under a megabyte.
    public static let maxStackDepth = 64
    /// Bar button items on one side of one navigation item (left, right). A bar shows three or
    /// four before it runs out of room; 16 leaves room for overflow menus.
    public static let maxBarButtonItemsPerSide = 16
    /// Unicode scalars in one text (title, back button title, image name, identifiers). Scalars,
    /// not characters: a single character can hold any number of combining scalars, so only
    /// scalars bound the bytes (at most 4 each).
    public static let maxTextLength = 256
    /// How many screens deep a chain of forward targets may nest (a forward target whose own
    /// gesture settings name a forward target, ...). Bounds the size of one screen.
    public static let maxForwardDepth = 4
    /// The largest font size a title text attribute may ask for, in points.
    public static let maxFontSize: Double = 1000
}
