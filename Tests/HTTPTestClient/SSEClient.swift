import Foundation

/// One Server-Sent Events message: what a browser would see of one blank-line-terminated block.
public struct SSEMessage: Sendable, Equatable {
    public var id: String?
    public var event: String?
    public var data: [String] = []
    public var comments: [String] = []
    public var retry: String?

    public init() {}

    public var dataText: String { data.joined(separator: "\n") }

    /// A heartbeat: the comment `heartbeat` and nothing else.
    public var isHeartbeat: Bool { comments == ["heartbeat"] && id == nil && event == nil && data.isEmpty && retry == nil }

    /// The data as a JSON object (NavPrefs sends one object per event).
    public func json() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(dataText.utf8)) as? [String: Any] else {
            throw TestClientError.malformed("SSE data is not an object: \(dataText)")
        }
        return object
    }
}

/// An event stream opened by GET, read message by message, for tests.
///
/// Heartbeats (blocks of the one comment `heartbeat`, which a browser never dispatches) are
/// skipped unless ``keepsHeartbeats`` is set: when one comes depends on the server's rounds
/// (a stream's first can come within a second of its opening, since streams opened together get
/// theirs spread over the interval), so a test that reads a sequence of messages on a loaded
/// machine would otherwise meet one among them now and then.
///
/// Safety (`@unchecked Sendable`): used by one caller at a time, like ``TestConnection``.
public final class SSEClient: @unchecked Sendable {
    public let head: TestResponse
    private let connection: TestConnection
    private var text = ""
    private var ended = false
    /// Whether ``next()`` returns heartbeats too (the tests of heartbeats).
    public var keepsHeartbeats = false
    /// How long a read waits for the server.
    static let timeout: Duration = .seconds(10)

    public init(port: Int, path: String, headers: [(String, String)] = [], sourceAddress: String? = nil) throws {
        connection = try TestConnection(port: port, timeout: Self.timeout, sourceAddress: sourceAddress)
        try connection.send("GET", path, headers: [("Accept", "text/event-stream")] + headers)
        var head = try connection.readHead()
        if head.header("Transfer-Encoding")?.lowercased() != "chunked" {
            // An error answer, not a stream: read its body.
            if let length = head.header("Content-Length").flatMap(Int.init), length > 0 {
                while head.body.count < length, let chunk = try? connection.readChunkless(length - head.body.count) {
                    head.body += chunk
                }
            }
            ended = true
        }
        self.head = head
    }

    /// The next complete message; `nil` when the stream ended. Throws a timeout after 10 s of
    /// nothing but skipped heartbeats, as after 10 s of nothing at all.
    public func next() throws -> SSEMessage? {
        let deadline = ContinuousClock.now + Self.timeout
        while true {
            if let range = text.range(of: "\n\n") {
                let block = String(text[..<range.lowerBound])
                text.removeSubrange(..<range.upperBound)
                let message = Self.parse(block)
                if message.isHeartbeat && !keepsHeartbeats {
                    guard ContinuousClock.now < deadline else { throw TestClientError.timeout }
                    continue
                }
                return message
            }
            guard !ended else { return nil }
            guard let chunk = try connection.readChunk() else {
                ended = true
                return nil
            }
            text += String(decoding: chunk, as: UTF8.self)
        }
    }

    /// Messages until one satisfies `stop` (included); throws if the stream ends first.
    public func messages(until stop: (SSEMessage) -> Bool) throws -> [SSEMessage] {
        var messages: [SSEMessage] = []
        while let message = try next() {
            messages.append(message)
            if stop(message) { return messages }
        }
        throw TestClientError.closed("stream ended after \(messages.count) messages")
    }

    /// Whether the server closed the connection within `timeout`.
    public func isClosedByServer(within timeout: Duration) -> Bool { connection.isClosedByServer(within: timeout) }

    static func parse(_ block: String) -> SSEMessage {
        var message = SSEMessage()
        for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(":") {
                message.comments.append(String(line.dropFirst()).trimmingCharacters(in: .whitespaces))
                continue
            }
            let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let field = String(parts[0])
            var value = parts.count > 1 ? String(parts[1]) : ""
            if value.hasPrefix(" ") { value.removeFirst() }
            switch field {
            case "id": message.id = value
            case "event": message.event = value
            case "data": message.data.append(value)
            case "retry": message.retry = value
            default: break
            }
        }
        return message
    }
}

extension SSEClient {
    public func next() async throws -> SSEMessage? { try await onOwnThread { try self.next() } }

    public func messages(until stop: @escaping @Sendable (SSEMessage) -> Bool) async throws -> [SSEMessage] {
        try await onOwnThread { try self.messages(until: stop) }
    }

    public static func open(port: Int, path: String, headers: [(String, String)] = [], sourceAddress: String? = nil) async throws -> SSEClient {
        let headers = headers.map { Pair($0.0, $0.1) }
        return try await onOwnThread { try SSEClient(port: port, path: path, headers: headers.map(\.tuple), sourceAddress: sourceAddress) }
    }
}
