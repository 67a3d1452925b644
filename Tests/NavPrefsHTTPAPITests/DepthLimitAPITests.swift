import Foundation
import HTTPTestClient
import NavPrefsCore
import Testing

/// One depth for every value (``JSONDepth/maxValueDepth``, 64): at the bound a value is stored,
/// one level deeper it is 422 `nested-too-deeply` naming the limit, for every write that takes
/// values, and a body past what the parser reads is the same 422, not a 400.
@Suite("Depth limit API")
struct DepthLimitAPITests {
    let base = "/v1/profiles/deep"

    static func nested(_ depth: Int) -> String { String(repeating: "[", count: depth) + String(repeating: "]", count: depth) }

    @Test("64 levels are stored; 65 are 422 nested-too-deeply with limit 64 on PUT, PATCH and defaults; nothing is written")
    func bound() async throws {
        try await withApp { app in
            let limit = JSONDepth.maxValueDepth
            #expect(limit == 64)
            let atLimit = try await app.request("PUT", base + "/preferences/v", json: "{\"value\":\(Self.nested(limit))}")
            #expect(atLimit.status == 201)
            #expect(try await app.request("GET", base + "/preferences/v").text.contains(Self.nested(limit)))
            for (method, path, body) in [("PUT", "/preferences/w", "{\"value\":\(Self.nested(limit + 1))}"),
                                         ("PATCH", "/preferences", "{\"w\":\(Self.nested(limit + 1))}"),
                                         ("PATCH", "/preferences", "{\"w\":{\"a\":\(Self.nested(limit))}}"),
                                         ("PUT", "/defaults", "{\"w\":\(Self.nested(limit + 1))}"),
                                         ("PATCH", "/defaults", "{\"w\":\(Self.nested(limit + 1))}"),
                                         ("PUT", "/preferences/w", "{\"value\":\(Self.nested(3_000))}")] {
                let refused = try await app.request(method, base + path, json: body)
                #expect(refused.status == 422, "\(method) \(path)")
                #expect(refused.header("Content-Type") == "application/problem+json")
                #expect(try refused.problemType() == problem("nested-too-deeply"), "\(method) \(path): \(refused.text.prefix(300))")
                #expect(try refused.int("limit") == Int64(limit))
                #expect(refused.text.contains("at most 64 levels"))
            }
            #expect(try await app.request("GET", base + "/preferences/w").status == 404, "nothing was written")
            #expect(try await app.request("GET", base + "/defaults").text.contains("\"values\":{}"))
        }
    }
}
