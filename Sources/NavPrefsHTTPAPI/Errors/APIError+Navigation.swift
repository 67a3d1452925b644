import NavPrefsCore
import NavPrefsJSON

extension APIError {
    /// The answer for a change the navigation rules refuse. Where UIKit raises an exception for
    /// the same mistake, its text is in `uikitMessage`, so iOS developers recognise it; `rule`
    /// names the rule of semantics.md.
    init(_ error: NavigationError) {
        let type: ProblemType = switch error {
        case .alreadyOnStack: .screenAlreadyOnStack
        case .notOnStack: .screenNotOnStack
        case .duplicateScreens: .duplicateScreens
        case .emptyStack: .invalidNavigation
        case .stackFull: .stackFull
        case .screenNotFound: .screenNotFound
        case .screenIsPresented: .screenIsPresented
        case .presentingScreenOnStack: .screenOnStack
        case .alreadyPresenting: .alreadyPresenting
        }
        var extensions: JSONObject = [:]
        if let message = error.uikitMessage { extensions["uikitMessage"] = .string(message) }
        if let rule = error.rule { extensions["rule"] = .string(rule) }
        if case .stackFull(let limit) = error { extensions["limit"] = .integer(Int64(limit)) }
        self.init(type, Self.sentence(error.description) + " Nothing changed.", extensions: extensions)
    }

    /// The answer for a navigation body that does not decode: a wrong shape is 400
    /// (`invalid-body`), a value the rules refuse 422 (`invalid-navigation`); both say where,
    /// as a JSON Pointer into the body.
    init(_ error: NavigationDecodingError) {
        let type: ProblemType = switch error.problem {
        case .unknownMember, .missingMember, .wrongType: .invalidBody
        case .invalidValue, .tooLong, .tooMany, .conflicts: .invalidNavigation
        }
        self.init(type, Self.sentence(error.description), extensions: ["pointer": .string(error.path)])
    }

    /// `text` as a sentence: capitalised, with a full stop.
    static func sentence(_ text: String) -> String {
        let capitalised = text.prefix(1).uppercased() + text.dropFirst()
        return capitalised.hasSuffix(".") ? capitalised : capitalised + "."
    }
}
