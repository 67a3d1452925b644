import Foundation
import NavPrefsCore
import NavPrefsHTTPAPI
import NavPrefsStore

/// `navprefs tokens create|list|revoke`: token management on the database itself, for the
/// first admin token and for machines without the admin API at hand. The service may run
/// meanwhile, on SQLite too: the command writes token rows only, without the service's claim on
/// the file (``StoreAccess/tokenWriter(create:)``), and the service sees a new token at once and a
/// revoked one within ``Authenticator/cacheTTL`` (5 s), as instances on PostgreSQL do. `list`
/// only reads: it never creates a database.
enum TokenCommand {
    static let usage = """
        Usage: navprefs tokens create (--profile NAME | --admin) [--label TEXT] [--database URL]
               navprefs tokens list [--database URL]
               navprefs tokens revoke ID [--database URL]
        The token is printed once, on standard output; only its SHA-256 is stored. The service
        may run meanwhile: it accepts a new token at once, and refuses a revoked one within 5 s.
        `create` makes the database if there is none (the first token, before the first start).
        Other settings (--database, DATABASE_URL, ...) are those of `navprefs --help`.
        Exit status: 0 done, 1 failed (no such token), 2 usage, 3 no database, or unreachable,
        4 a database this navprefs cannot use as it is.

        """

    /// Runs the command in `arguments` (after `tokens`); returns the exit status.
    static func run(_ arguments: [String], environment: [String: String]) async -> Int32 {
        var rest = arguments[...]
        guard let action = rest.popFirst(), ["create", "list", "revoke"].contains(action) else {
            FileHandle.standardError.write(Data(usage.utf8))
            return 2
        }
        var profile: String?, admin = false, label = "", id: String?
        var settings = ["navprefs"]
        while let argument = rest.popFirst() {
            switch argument {
            case "--profile": profile = rest.popFirst()
            case "--admin": admin = true
            case "--label": label = rest.popFirst() ?? ""
            case "--help", "-h":
                print(usage, terminator: "")
                return 0
            default:
                if action == "revoke", id == nil, !argument.hasPrefix("--") { id = argument } else { settings.append(argument) }
            }
        }
        let configuration: Configuration
        do {
            guard case .run(let parsed) = try Configuration.parse(arguments: settings, environment: environment) else {
                print(usage, terminator: "")
                return 0
            }
            configuration = parsed
        } catch {
            return fail("\(error)")
        }
        if action == "revoke", id == nil { return fail("name the token to revoke: navprefs tokens revoke ID") }
        var scope: ProfileName?
        if action == "create" {
            switch Self.scope(profile: profile, admin: admin, label: label) {
            case .success(let found): scope = found
            case .failure(let failure): return CommandOutput.fail("tokens", failure)
            }
        }
        let access: StoreAccess = switch action {
        case "list": .reader(acceptsUnfinishedImport: true)
        case "create": .tokenWriter(create: true)
        default: .tokenWriter(create: false)
        }
        let store: any TransactionalStore
        do {
            store = try await CommandStore.open(configuration, access: access)
        } catch {
            return CommandOutput.fail("tokens", error)
        }
        let status: Int32
        switch action {
        case "create": status = await create(scope: scope, label: label, in: store)
        case "list": status = await list(store)
        default: status = await revoke(id, in: store)
        }
        await store.close()
        return status
    }

    /// The token's scope, or why the arguments do not make one (checked before any database is opened).
    private static func scope(profile: String?, admin: Bool, label: String) -> Result<ProfileName?, CommandFailure> {
        guard AccessToken.isValidLabel(label) else {
            return .failure(CommandFailure(.usage, "--label is at most \(AccessToken.maxLabel) code points, without control characters"))
        }
        switch (profile, admin) {
        case (let name?, false):
            guard let valid = try? ProfileName(name) else { return .failure(CommandFailure(.usage, "'\(name)' is not a valid profile name")) }
            return .success(valid)
        case (nil, true):
            return .success(nil)
        default:
            return .failure(CommandFailure(.usage, "give either --profile NAME or --admin"))
        }
    }

    private static func create(scope: ProfileName?, label: String, in store: any TokenStore) async -> Int32 {
        guard let made = AccessToken.make(profile: scope, label: label, now: Int64(Date().timeIntervalSince1970 * 1000)) else {
            return fail("cannot make a random token", status: 1)
        }
        do {
            try await store.createToken(made.record)
        } catch {
            return fail("\(error)", status: 1)
        }
        print(made.token)
        FileHandle.standardError.write(Data("navprefs: token \(made.record.id) created for \(scope.map { "profile \($0.rawValue)" } ?? "admin"); it is shown only this once\n".utf8))
        return 0
    }

    private static func list(_ store: any TokenStore) async -> Int32 {
        do {
            for token in try await store.tokens() {
                let created = AccessToken.timestamp(milliseconds: token.createdAt)
                // From the database: escaped, as everything a command prints from one.
                print([token.id, token.profile.map { "profile:\($0.rawValue)" } ?? "admin", created, token.label]
                    .map(TerminalText.escaped).joined(separator: "\t"))
            }
            return 0
        } catch {
            return fail("\(error)", status: 1)
        }
    }

    private static func revoke(_ id: String?, in store: any TokenStore) async -> Int32 {
        guard let id else { return fail("name the token to revoke: navprefs tokens revoke ID") }
        do {
            guard try await store.revokeToken(id: id) else { return fail("no token has the id '\(id)'", status: 1) }
            FileHandle.standardError.write(Data("navprefs: token \(id) revoked\n".utf8))
            return 0
        } catch {
            return fail("\(error)", status: 1)
        }
    }

    private static func fail(_ message: String, status: Int32 = 2) -> Int32 {
        CommandOutput.say("tokens", message)
        return status
    }
}

