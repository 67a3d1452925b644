import Foundation
import NavPrefsCore
import NavPrefsHTTPAPI
import NavPrefsStore

/// `navprefs tokens create|list|revoke`: token management on the database itself, for the
/// first admin token and for machines without the admin API at hand. With SQLite the service
/// must be stopped (one process owns the file); with PostgreSQL it may run, and instances see
/// a new token at once and a revoked one within ``Authenticator/cacheTTL``.
enum TokenCommand {
    static let usage = """
        Usage: navprefs tokens create (--profile NAME | --admin) [--label TEXT] [--database URL]
               navprefs tokens list [--database URL]
               navprefs tokens revoke ID [--database URL]
        The token is printed once, on standard output; only its SHA-256 is stored.
        Other settings (--database, DATABASE_URL, ...) are those of `navprefs --help`.

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
        var configuration: Configuration
        do {
            guard case .run(let parsed) = try Configuration.parse(arguments: settings, environment: environment) else {
                print(usage, terminator: "")
                return 0
            }
            configuration = parsed
        } catch {
            return fail("\(error)")
        }
        configuration.postgresPoolSize = 1
        let (store, _) = StoreChoice.store(for: configuration)
        do {
            try await runOffThePool { try store.start() }
        } catch {
            return fail("cannot open \(configuration.database): \(error)"
                + (configuration.database.isSQLite ? " (while navprefs runs on this file, use the admin API: POST /v1/admin/tokens)" : ""), status: 1)
        }
        let status: Int32
        switch action {
        case "create": status = await create(profile: profile, admin: admin, label: label, in: store)
        case "list": status = await list(store)
        default: status = await revoke(id, in: store)
        }
        await store.close()
        return status
    }

    private static func create(profile: String?, admin: Bool, label: String, in store: any Store) async -> Int32 {
        let scope: ProfileName?
        switch (profile, admin) {
        case (let name?, false):
            guard let valid = try? ProfileName(name) else { return fail("'\(name)' is not a valid profile name") }
            scope = valid
        case (nil, true):
            scope = nil
        default:
            return fail("give either --profile NAME or --admin")
        }
        guard AccessToken.isValidLabel(label) else {
            return fail("--label is at most \(AccessToken.maxLabel) code points, without control characters")
        }
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

    private static func list(_ store: any Store) async -> Int32 {
        do {
            for token in try await store.tokens() {
                let created = AccessToken.timestamp(milliseconds: token.createdAt)
                print([token.id, token.profile.map { "profile:\($0.rawValue)" } ?? "admin", created, token.label].joined(separator: "\t"))
            }
            return 0
        } catch {
            return fail("\(error)", status: 1)
        }
    }

    private static func revoke(_ id: String?, in store: any Store) async -> Int32 {
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
        FileHandle.standardError.write(Data("navprefs tokens: \(message)\n".utf8))
        return status
    }
}

extension DatabaseLocation {
    var isSQLite: Bool {
        if case .sqlite = self { return true }
        return false
    }
}
