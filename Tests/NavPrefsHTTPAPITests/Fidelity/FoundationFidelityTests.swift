import Foundation
import HTTPTestClient
import NavPrefsCore
import NavPrefsJSON
import Synchronization
import Testing

/// Semantics P-0: Foundation is the authority. Values are stored in a real
/// `UserDefaults(suiteName:)` of this very toolchain (swift-corelibs-foundation) and through the
/// API of a real server, and every getter's answer is compared, bit for bit.
///
/// The generated values change with every run (the seed is printed; `NAVPREFS_FIDELITY_SEED`
/// replays one). Documented choices, asserted rather than compared:
/// - where Foundation itself crashes (`integer`/`float`/`double` of a string whose first
///   character after whitespace and sign lies outside the BMP), the getter answers 0;
/// - `url(forKey:)` depends on the process (current directory, user database, disk); the
///   service answers as a process whose current directory is `/` and home `/root` would
///   (`FileURLEnvironment.fixed`), and that same algorithm is proven against Foundation here
///   with this process's real environment;
/// - an infinite `float`/`double` answer is sent as the string "Infinity" / "-Infinity".
@Suite("P-0: typed reads are exactly what Foundation's UserDefaults answers")
struct FoundationFidelityTests {
    /// Per run, unless replayed.
    static let seed: UInt64 = {
        let given = ProcessInfo.processInfo.environment["NAVPREFS_FIDELITY_SEED"].flatMap { UInt64($0) }
        let seed = given ?? UInt64(Date().timeIntervalSince1970 * 1000)
        print("P-0 fidelity: seed \(seed) (replay with NAVPREFS_FIDELITY_SEED=\(seed))")
        return seed
    }()

    /// `perKind` generated values of every kind, after the named edge cases.
    static func cases(perKind: Int) -> [(label: String, value: JSONValue)] {
        var generator = ValueGenerator(seed: seed)
        var cases = EdgeValues.all
        for kind in ValueKind.allCases {
            for index in 0..<perKind { cases.append(("\(kind.rawValue)#\(index)", generator.value(of: kind))) }
        }
        return cases
    }

    /// Stores `value` in a fresh key of `defaults` and answers every getter's reading, or `nil`
    /// for a getter on which Foundation crashes.
    static func foundationReadings(of value: JSONValue, in defaults: UserDefaults, key: String) -> [PreferenceGetter: JSONValue?] {
        store(value, in: defaults, key: key)
        var readings: [PreferenceGetter: JSONValue?] = [:]
        for getter in PreferenceGetter.allCases {
            readings[getter] = getter.trapsInFoundation(value) ? .some(nil) : oracleRead(getter, defaults, key: key)
        }
        defaults.removeObject(forKey: key)
        return readings
    }

    @Test("directly: every getter, for every named edge case and 10,002 generated values, as Foundation answers (seed printed)")
    func direct() throws {
        let suite = "navprefs.fidelity.direct.\(getpid()).\(UUID().uuidString)"
        let defaults = try #require(UserDefaults(suiteName: suite))
        defer { defaults.removePersistentDomain(forName: suite) }
        let environment = processEnvironment()
        var differences: [String] = []
        var compared = 0
        for (label, value) in Self.cases(perKind: 1_667) {
            for (getter, expected) in Self.foundationReadings(of: value, in: defaults, key: "v") {
                let ours = getter.read(value, environment: environment)
                compared += 1
                guard let expected else {
                    // Foundation would crash: the documented answer is the getter's nothing-found value.
                    if !same(ours, getter.read(nil)) { differences.append("\(label) \(getter) crash case: \(describe(ours))") }
                    continue
                }
                if !same(expected, ours) {
                    differences.append("\(label) \(getter) of \(describe(value)): Foundation \(describe(expected)), ours \(describe(ours))")
                }
            }
        }
        for getter in PreferenceGetter.allCases where !same(oracleRead(getter, defaults, key: "absent"), getter.read(nil)) {
            differences.append("absent key, \(getter)")
        }
        #expect(compared > 100_000)
        #expect(differences.isEmpty, "seed \(Self.seed): \(differences.count) differences, first: \(differences.prefix(10))")
    }

    @Test("through the API of a real server: every named edge case and 5,004 generated values, every getter (seed printed)", .overSockets("through a real server: the values as bytes on the wire"))
    func throughTheAPI() async throws {
        let suite = "navprefs.fidelity.api.\(getpid()).\(UUID().uuidString)"
        let defaults = try #require(UserDefaults(suiteName: suite))
        defer { defaults.removePersistentDomain(forName: suite) }
        // The API refuses what JSON's parser refuses: object member names holding NUL.
        let cases = Self.cases(perKind: 834).filter { Self.membersFreeOfNUL($0.value) }
        #expect(cases.count >= 5_000)
        let expected = cases.enumerated().map { index, item in Self.foundationReadings(of: item.value, in: defaults, key: "c\(index)") }
        try await withApp { app in
            // Stored in batches (a JSON Merge Patch each), 500 keys per profile.
            for start in stride(from: 0, to: cases.count, by: 500) {
                var patch = JSONObject()
                for index in start..<min(start + 500, cases.count) { patch["c\(index)"] = cases[index].value }
                let stored = try await app.request("PATCH", Self.path(start), json: JSONValue.object(patch).jsonText)
                try #require(stored.status == 200, "\(stored.text.prefix(300))")
            }
            let port = app.port
            let failures = Mutex<[String]>([])
            let threads = 4
            _ = try await TestHTTP.onThreads(threads) { thread in
                let connection = try TestConnection(port: port)
                for index in stride(from: thread, to: cases.count, by: threads) {
                    for getter in PreferenceGetter.allCases {
                        let response = try connection.request("GET", Self.path(index) + "/c\(index)?as=\(getter.rawValue)")
                        let answer = try Self.answer(response)
                        let wanted: JSONValue = if getter == .url {
                            getter.read(cases[index].value, environment: .fixed)
                        } else if let foundation = expected[index][getter], let foundation {
                            Self.representable(foundation)
                        } else {
                            getter.read(nil)  // Foundation crashes here; the documented answer
                        }
                        if answer.map({ !same($0, wanted) }) ?? true {
                            failures.withLock {
                                $0.append("\(cases[index].label) \(getter) of \(describe(cases[index].value)): wanted \(describe(wanted)), API \(response.text.prefix(200))")
                            }
                        }
                    }
                }
            }
            let found = failures.withLock { $0 }
            #expect(found.isEmpty, "seed \(Self.seed): \(found.count) differences, first: \(found.prefix(10))")
        }
    }

    /// The profile holding case `index`, 500 per profile (under the 1,000-key limit).
    static func path(_ index: Int) -> String { "/v1/profiles/fidelity\(index / 500)/preferences" }

    /// The `value` member of a typed read, parsed so that 1 and 1.0 stay apart.
    static func answer(_ response: TestResponse) throws -> JSONValue? {
        guard response.status == 200, case .object(let body) = try JSONValue.parse(response.body) else { return nil }
        return body["value"]
    }

    /// As the API sends a getter's answer: an infinite number as the string "Infinity"/"-Infinity".
    static func representable(_ value: JSONValue) -> JSONValue {
        guard case .number(let number) = value, number.isInfinite else { return value }
        return .string(number > 0 ? "Infinity" : "-Infinity")
    }

    static func membersFreeOfNUL(_ value: JSONValue) -> Bool {
        switch value {
        case .array(let items): items.allSatisfy(membersFreeOfNUL)
        case .object(let object): object.allSatisfy { !$0.key.utf8.contains(0) && membersFreeOfNUL($0.value) }
        default: true
        }
    }
}
