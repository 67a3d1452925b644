import Foundation
import HTTPTestClient
import NavPrefsClient
import Testing

extension ClientSuites {
    /// The client's guide (docs/swift-client.md) and README's client section show only code the
    /// tests compile: every Swift block is in GuideExamples.swift verbatim (the manifest and the
    /// whole program, `// main.swift`, are built and run by scripts/check-client-dependency.py);
    /// and the guide's examples do what it says.
    @Suite("The client guide")
    struct GuideTests {
        static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

        /// The Swift blocks of a Markdown text, manifests (and their excerpts) and whole programs
        /// left out: top-level code cannot sit in a test file, and scripts/check-client-dependency.py
        /// builds those as a package of their own.
        static func swiftBlocks(_ markdown: String) -> [String] {
            markdown.matches(of: /```swift\n((?s).*?)```/).map { String($0.1) }.filter {
                !$0.hasPrefix("// Package.swift") && !$0.contains("import PackageDescription") && !$0.hasPrefix("// main.swift")
            }
        }

        @Test("every Swift block of the guide and of README's client section is compiled")
        func compiled() throws {
            let examples = try String(contentsOf: Self.root.appendingPathComponent("Tests/NavPrefsClientTests/GuideExamples.swift"), encoding: .utf8)
            let guide = try String(contentsOf: Self.root.appendingPathComponent("docs/swift-client.md"), encoding: .utf8)
            let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
            let heading = try #require(readme.range(of: "\n## Swift client\n"))
            let after = readme[heading.upperBound...]
            let clientSection = after.range(of: "\n## ").map { after[..<$0.lowerBound] } ?? after
            let blocks = Self.swiftBlocks(guide) + Self.swiftBlocks(String(clientSection))
            #expect(blocks.count >= 6)
            for block in blocks { #expect(examples.contains(block), "not compiled by the tests:\n\(block)") }
        }

        @Test("the guide's writes: in the mirror at once offline, on the server once it answers")
        func settingsExample() async throws {
            try await withRig { rig in
                let profile = try rig.profile("guide")
                #expect(try await profile.ready() == .server)
                rig.proxy.route(to: [])
                rig.proxy.cutAll()
                settings(profile)
                #expect(profile.preferences.string(forKey: "theme") == "dark")
                #expect(profile.preferences.integer(forKey: "launches") == 1)
                #expect(profile.preferences.double(forKey: "volume") == 0.8)
                #expect(profile.preferences.string(forKey: "layout") == "wide")
                #expect(profile.counter.stringValue == "1")
                #expect(profile.font.sliderValue == 2 && profile.font.fontSize == 19)
                rig.proxy.route(to: [rig.server.port])
                #expect(await eventually { profile.pendingWrites == 0 })
                let state = try JSON(parsing: try await rig.request("GET", "/v1/profiles/guide/state").text)
                #expect(state["preferences"]?["values"]?["theme"]?["value"] == "dark")
                #expect(state["preferences"]?["values"]?["numIndex"]?["value"] == "1")
                #expect(state["preferences"]?["values"]?["fontSizekey"]?["value"] == 19.0)
                #expect(state["defaults"]?["values"]?["volume"] == 0.8)
                #expect(await MainActor.run { describe(profile.status) }.hasPrefix("Up to date") || profile.connection != .connected)
            }
        }
    }
}
