import Foundation

extension OutboxEntry {
    /// The events the server's answer to this write stands for, applied to the mirror as the
    /// stream would apply them (the stream's own copy then changes nothing: same versions).
    func answerEvents(_ body: JSON) -> [(type: String, data: JSON)] {
        switch effect {
        case .counterStep, .counterReset:
            guard let text = body["stringValue"], let version = body["version"]?.int64Value else { return [] }
            let operation = path.split(separator: "/").last.map(String.init) ?? "increment"
            return [("counter", .object([.init("operation", .string(operation)), .init("stringValue", text), .init("version", .integer(version))]))]
        case .font:
            guard let slider = body["sliderValue"]?.doubleValue, let size = body["fontSize"]?.doubleValue,
                  let version = body["version"]?.int64Value
            else { return [] }
            return [("refresh", .object([
                .init("keys", ["sliderValuekey", "fontSizekey"]), .init("sliderValue", .number(slider)), .init("fontSize", .number(size)),
                .init("version", .integer(version)),
            ]))]
        case .defaults:
            guard let values = body["values"], let version = body["version"]?.int64Value else { return [] }
            return [("preference", .object([.init("defaults", values), .init("version", .integer(version))]))]
        case .values(let assignments):
            switch method {
            case "PUT":
                guard let key = assignments.first?.key, let value = body["value"], let version = body["version"]?.int64Value else { return [] }
                return [("preference", .object([.init("key", .string(key)), .init("value", value), .init("version", .integer(version))]))]
            case "DELETE":
                guard let key = assignments.first?.key, let version = body["eventId"]?.int64Value else { return [] }  // nothing was stored
                return [("preference", .object([
                    .init("key", .string(key)), .init("removed", true), .init("value", body["value"] ?? .null), .init("version", .integer(version)),
                ]))]
            default:
                // A PATCH: each change as its event says it (a value, a merge patch, a removal).
                return (body["changes"]?.arrayValue ?? []).map { ("preference", $0) }
            }
        }
    }
}
