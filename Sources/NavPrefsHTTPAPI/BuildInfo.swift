/// What this build is, for `navprefs_build_info` and the start log line.
public enum BuildInfo {
    public static let version = "0.5.0"

    /// The compiler that built this binary.
    public static var swiftVersion: String {
        #if compiler(>=6.3)
        "6.3"
        #elseif compiler(>=6.2)
        "6.2"
        #else
        "6"
        #endif
    }
}
