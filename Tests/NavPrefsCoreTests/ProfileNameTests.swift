import NavPrefsCore
import Testing

@Suite("Profile names")
struct ProfileNameTests {
    @Test("valid names", arguments: ["default", "a", "A", "0", "alice", "device-42", "team.ios_beta", String(repeating: "x", count: 64)])
    func valid(name: String) throws {
        #expect(try ProfileName(name).rawValue == name)
    }

    @Test("invalid names say why", arguments: [
        ("", ProfileNameError.empty),
        (String(repeating: "x", count: 65), .tooLong(length: 65)),
        (".hidden", .badFirstCharacter),
        ("-x", .badFirstCharacter),
        ("_x", .badFirstCharacter),
        ("..", .badFirstCharacter),
        ("a/b", .badCharacter),
        ("a b", .badCharacter),
        ("é", .badFirstCharacter),
        ("aé", .badCharacter),
        ("a%2F", .badCharacter),
        ("a\u{0}", .badCharacter),
    ])
    func invalid(name: String, error: ProfileNameError) {
        #expect(throws: error) { try ProfileName(name) }
    }

    @Test("default is the always-present profile")
    func defaultProfile() throws {
        #expect(try ProfileName("default") == .default)
        #expect(ProfileName.default.isDefault)
        #expect(try !ProfileName("Default").isDefault)
    }
}

@Suite("Versions and If-Match preconditions (A-1)")
struct VersionTests {
    @Test("versions start at 0 and count writes")
    func counting() {
        #expect(Version.initial == Version(0))
        #expect(Version.initial.next == Version(1))
    }

    @Test("If-Match admits", arguments: [
        (WritePrecondition.exists, Version?.some(Version(0)), true),
        (.exists, nil, false),
        (.version(in: [Version(3)]), Version(3), true),
        (.version(in: [Version(2), Version(3)]), Version(3), true),
        (.version(in: [Version(2)]), Version(3), false),
        (.version(in: []), Version(3), false),
        (.version(in: [Version(0)]), nil, false),
    ])
    func admits(precondition: WritePrecondition, current: Version?, expected: Bool) {
        #expect(precondition.admits(current) == expected)
    }
}
