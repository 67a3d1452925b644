import Foundation
import Synchronization

/// A response as read off the wire by ``TestConnection``.
public struct TestResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(String, String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed with Foundation's JSONSerialization (an independent parser from the server's).
    public func json() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            throw TestClientError.malformed("body is not a JSON object: \(text)")
        }
        return object
    }
}

/// One-shot helpers: a fresh connection per call.
public enum TestHTTP {
    public static func request(
        port: Int, _ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = []
    ) throws -> TestResponse {
        try TestConnection(port: port).request(method, path, headers: headers, body: body)
    }

    public static func request(port: Int, _ method: String, _ path: String, headers: [(String, String)] = [], json: String) throws -> TestResponse {
        try TestConnection(port: port).request(method, path, headers: headers, json: json)
    }

    /// Runs `body` on `count` OS threads at once (blocking clients must not occupy Swift's
    /// cooperative pool, which has one thread per core) and returns their results in order.
    /// The threads start at once, whatever the state of the cooperative pool.
    public static func onThreads<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) throws -> T) async throws -> [T] {
        let started = startThreads(count, body)
        var results: [T] = []
        for thread in started { results.append(try await thread.value) }
        return results
    }

    /// Starts `count` threads running `body` now; await each handle's `value` later.
    public static func startThreads<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) throws -> T) -> [ThreadResult<T>] {
        (0..<count).map { index in ThreadResult { try body(index) } }
    }
}

/// The result of a closure running on a thread started at creation.
public final class ThreadResult<T: Sendable>: Sendable {
    private let result = Mutex<Result<T, any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    public init(_ body: @escaping @Sendable () throws -> T) {
        let thread = Thread { [self] in
            let outcome = Result { try body() }
            result.withLock { $0 = outcome }
            done.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Whether the closure has returned.
    public var isFinished: Bool { result.withLock { $0 != nil } }

    /// Waits (on a thread of its own, not the cooperative pool) for the closure to return.
    public var value: T {
        get async throws {
            try await onOwnThread { [done] in done.wait(); done.signal() }
            let outcome = result.withLock { $0 }
            guard let outcome else { throw TestClientError.timeout }
            return try outcome.get()
        }
    }
}
