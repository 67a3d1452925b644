import Foundation

/// Runs `body` on a new OS thread and waits for it without blocking a cooperative-pool thread.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.stackSize = 1 << 20
        thread.start()
    }
}

// Async twins of the blocking calls; in async code Swift picks these overloads.
extension TestConnection {
    public func send(raw bytes: [UInt8]) async throws {
        try await onOwnThread { try self.send(raw: bytes) }
    }

    public func send(raw text: String) async throws {
        try await onOwnThread { try self.send(raw: text) }
    }

    public func send(_ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = []) async throws {
        let headers = headers.map { Pair($0.0, $0.1) }
        try await onOwnThread { try self.send(method, path, headers: headers.map(\.tuple), body: body) }
    }

    public func request(_ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = []) async throws -> TestResponse {
        let headers = headers.map { Pair($0.0, $0.1) }
        return try await onOwnThread { try self.request(method, path, headers: headers.map(\.tuple), body: body) }
    }

    public func request(_ method: String, _ path: String, headers: [(String, String)] = [], json: String) async throws -> TestResponse {
        let headers = headers.map { Pair($0.0, $0.1) }
        return try await onOwnThread { try self.request(method, path, headers: headers.map(\.tuple), json: json) }
    }

    public func readResponse(method: String = "GET") async throws -> TestResponse {
        try await onOwnThread { try self.readResponse(method: method) }
    }

    public func readHead() async throws -> TestResponse {
        try await onOwnThread { try self.readHead() }
    }

    public func readChunk() async throws -> [UInt8]? {
        try await onOwnThread { try self.readChunk() }
    }

    public func readStream(until marker: String) async throws -> String {
        try await onOwnThread { try self.readStream(until: marker) }
    }

    public func isReadable(within timeout: Duration) async -> Bool {
        (try? await onOwnThread { self.isReadable(within: timeout) }) ?? false
    }

    public func isClosedByServer(within timeout: Duration = .seconds(2)) async -> Bool {
        (try? await onOwnThread { self.isClosedByServer(within: timeout) }) ?? false
    }
}

/// A header pair that can cross to another thread (tuples of Strings are Sendable, but
/// arrays of them trip the checker in some positions).
struct Pair: Sendable {
    let name: String
    let value: String
    init(_ name: String, _ value: String) { self.name = name; self.value = value }
    var tuple: (String, String) { (name, value) }
}

extension TestHTTP {
    public static func request(
        port: Int, _ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = []
    ) async throws -> TestResponse {
        let headers = headers.map { Pair($0.0, $0.1) }
        return try await onOwnThread {
            try TestConnection(port: port).request(method, path, headers: headers.map(\.tuple), body: body)
        }
    }

    public static func request(port: Int, _ method: String, _ path: String, headers: [(String, String)] = [], json: String) async throws -> TestResponse {
        let headers = headers.map { Pair($0.0, $0.1) }
        return try await onOwnThread {
            try TestConnection(port: port).request(method, path, headers: headers.map(\.tuple), json: json)
        }
    }
}
