import CMicroHTTPD
import Glibc

/// One request between libmicrohttpd's calls of the access handler, and a write's place in its turn.
final class Request {
    var body: [UInt8] = []
    var tooLarge = false
    var profile = ""
    var outcome = Outcome.failed
    var connection: OpaquePointer?
}

/// The floor: one thread runs libmicrohttpd and SQLite. The writes of one turn of the loop (one
/// `MHD_run`) run in one transaction, each in its savepoint, their connections suspended; before
/// the loop sleeps again it commits once and only then queues the turn's answers and resumes
/// their connections (Redis' `beforeSleep`: flush the AOF, then write the replies).
final class FloorServer {
    private let store: Store
    private var daemon: OpaquePointer?
    /// The writes of the current turn, in the order they ran.
    private var turn: [Request] = []
    /// Committed counters (navprefs' CounterCache): GETs answer from here.
    private var counters: [String: (value: Int64, version: Int64)] = [:]
    private var answer: [UInt8] = []
    private var header: [UInt8] = []
    private let requestIDPrefix: String
    private var requestCount: UInt64 = 0
    /// Turns that committed writes, the writes they held, and the wall time of their commits
    /// (printed on exit).
    private(set) var turns = 0, writes = 0, commitNanoseconds: Int64 = 0
    /// Turns by the number of writes they held: 1, 2-3, 4-7, ... 64-127, 128 or more.
    private(set) var turnSizes = [Int](repeating: 0, count: 8)

    init(store: Store) {
        self.store = store
        requestIDPrefix = String(UInt32.random(in: 0x1000_0000...UInt32.max), radix: 16)
        turn.reserveCapacity(1024)
        answer.reserveCapacity(256)
        header.reserveCapacity(64)
    }

    /// Serves on 127.0.0.1:`port` until SIGINT or SIGTERM.
    func serve(port: UInt16) -> Bool {
        let signals = floor_signal_fd()
        let cls = Unmanaged.passUnretained(self).toOpaque()
        guard signals >= 0, let daemon = floor_start_daemon(port, accessHandler, requestCompleted, cls) else { return false }
        self.daemon = daemon
        let loop = floor_loop_create(daemon, signals)
        guard loop >= 0 else { return false }
        printError("floor: ready on 127.0.0.1:\(port)")
        var answersQueued = false
        while true {
            // Resumed connections carry answers: run MHD again at once to send them.
            if !answersQueued, floor_loop_wait(daemon, loop, signals, 1000) != 0 { break }
            _ = MHD_run(daemon)
            answersQueued = finishTurn()
        }
        // The last turn's writes are committed and answered by the finishTurn above.
        MHD_stop_daemon(daemon)
        Glibc.close(loop)
        Glibc.close(signals)
        store.close()
        return true
    }

    /// The turn boundary: MHD_run has returned, every ready connection was served. Commits the
    /// turn's writes once, then answers them in the order they ran. Returns whether it answered any.
    private func finishTurn() -> Bool {
        guard !turn.isEmpty else { return false }
        let start = floor_monotonic_ns()
        let committed = store.commitTurn(created: turn.lazy.compactMap {
            if case .committed = $0.outcome { $0.profile } else { nil }
        })
        commitNanoseconds += floor_monotonic_ns() - start
        turns += 1
        writes += turn.count
        turnSizes[min(Int.bitWidth - 1 - turn.count.leadingZeroBitCount, turnSizes.count - 1)] += 1
        for request in turn {
            guard let connection = request.connection else { continue }
            switch request.outcome {
            case let .committed(value, version, eventID) where committed:
                counters[request.profile] = (value, version)
                queueState(connection, request.profile, value: value, version: version, eventID: eventID)
            case .refused where committed:
                queueProblem(connection, status: 409, title: "Counter out of range")
            default:
                queueProblem(connection, status: 503, title: "Storage unavailable")
            }
            request.connection = nil
            MHD_resume_connection(connection)
        }
        turn.removeAll(keepingCapacity: true)
        return true
    }

    // MARK: Requests

    fileprivate func handle(_ connection: OpaquePointer, _ url: UnsafePointer<CChar>, _ method: UnsafePointer<CChar>,
                            _ upload: UnsafePointer<CChar>?, _ uploadSize: UnsafeMutablePointer<Int>,
                            _ context: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        guard let raw = context.pointee else {
            // First call: the head is in. Answering here would make MHD 0.9.75 close the
            // connection, so every answer waits for the last call.
            context.pointee = Unmanaged.passRetained(Request()).toOpaque()
            return .YES
        }
        let request = Unmanaged<Request>.fromOpaque(raw).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            if let upload, request.body.count + uploadSize.pointee <= 1024 {
                request.body.append(contentsOf: UnsafeRawBufferPointer(start: upload, count: uploadSize.pointee))
            } else {
                request.tooLarge = true
            }
            uploadSize.pointee = 0
            return .YES
        }
        let path = UnsafeBufferPointer(start: UnsafeRawPointer(url).assumingMemoryBound(to: UInt8.self), count: strlen(url))
        switch (method[0], Self.route(path)) {
        case (0x47 /* G */, .counter(let profile)?) where strcmp(method, "GET") == 0:
            if let state = counters[profile] {
                return queueState(connection, profile, value: state.value, version: state.version, eventID: nil)
            }
            guard let state = store.read(profile) else { return queueProblem(connection, status: 503, title: "Storage unavailable") }
            counters[profile] = state
            return queueState(connection, profile, value: state.value, version: state.version, eventID: nil)
        case (0x50 /* P */, .increment(let profile)?) where strcmp(method, "POST") == 0:
            if request.tooLarge { return queueProblem(connection, status: 413, title: "Payload too large") }
            if !request.body.isEmpty {
                let type = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Type")
                guard let type, strncasecmp(type, "application/json", 16) == 0 else {
                    return queueProblem(connection, status: 415, title: "Unsupported media type")
                }
            }
            guard let by = Self.step(request.body) else { return queueProblem(connection, status: 400, title: "Invalid body") }
            // The write runs now, in the turn's transaction; its answer waits for the commit.
            request.profile = profile
            request.outcome = store.increment(profile, by: by)
            request.connection = connection
            MHD_suspend_connection(connection)
            turn.append(request)
            return .YES
        default:
            return queueProblem(connection, status: 404, title: "Not found")
        }
    }

    enum Route { case counter(String), increment(String) }

    /// `/v1/profiles/{name}/counter` and `…/counter/increment`, with navprefs' profile-name rules
    /// (1-64 of `A-Za-z0-9._-`, the first a letter or digit).
    static func route(_ path: UnsafeBufferPointer<UInt8>) -> Route? {
        let prefix = "/v1/profiles/".utf8
        guard path.count > prefix.count, path.starts(with: prefix) else { return nil }
        let start = prefix.count
        guard let slash = path[start...].firstIndex(of: UInt8(ascii: "/")), slash > start, slash - start <= 64 else { return nil }
        for index in start..<slash {
            switch path[index] {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): continue
            case UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"): if index == start { return nil }
            default: return nil
            }
        }
        let name = String(decoding: UnsafeBufferPointer(rebasing: path[start..<slash]), as: UTF8.self)
        let rest = UnsafeBufferPointer(rebasing: path[slash...])
        if rest.elementsEqual("/counter".utf8) { return .counter(name) }
        if rest.elementsEqual("/counter/increment".utf8) { return .increment(name) }
        return nil
    }

    /// `{"by": n}` (n ≥ 1), or 1 for an empty body.
    static func step(_ body: [UInt8]) -> Int64? {
        if body.isEmpty { return 1 }
        let key = Array(#""by""#.utf8)
        guard let at = body.indices.first(where: { body[$0...].starts(with: key) }) else { return nil }
        var index = at + key.count
        func skipSpace() { while index < body.count, [0x20, 0x09, 0x0A, 0x0D].contains(body[index]) { index += 1 } }
        skipSpace()
        guard index < body.count, body[index] == UInt8(ascii: ":") else { return nil }
        index += 1
        skipSpace()
        var value: Int64 = 0, digits = 0
        while index < body.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(body[index]) {
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(Int64(body[index] - UInt8(ascii: "0")))
            guard !o1, !o2 else { return nil }
            value = sum
            digits += 1
            index += 1
        }
        return digits > 0 && value >= 1 ? value : nil
    }

    // MARK: Answers

    /// `{"profile":…,"value":N,"stringValue":"N","version":V[,"eventId":E]}` with navprefs' headers.
    @discardableResult
    private func queueState(_ connection: OpaquePointer, _ profile: String, value: Int64, version: Int64, eventID: Int64?) -> MHD_Result {
        answer.removeAll(keepingCapacity: true)
        answer.append(contentsOf: #"{"profile":""#.utf8)
        answer.append(contentsOf: profile.utf8)
        answer.append(contentsOf: #"","value":"#.utf8)
        answer.appendDecimal(value)
        answer.append(contentsOf: #","stringValue":""#.utf8)
        answer.appendDecimal(value)
        answer.append(contentsOf: #"","version":"#.utf8)
        answer.appendDecimal(version)
        if let eventID {
            answer.append(contentsOf: #","eventId":"#.utf8)
            answer.appendDecimal(eventID)
        }
        answer.append(contentsOf: "}\n".utf8)
        return queue(connection, status: 200, contentType: "application/json", version: version)
    }

    @discardableResult
    private func queueProblem(_ connection: OpaquePointer, status: UInt32, title: String) -> MHD_Result {
        answer.removeAll(keepingCapacity: true)
        answer.append(contentsOf: #"{"title":""#.utf8)
        answer.append(contentsOf: title.utf8)
        answer.append(contentsOf: #"","status":"#.utf8)
        answer.appendDecimal(Int64(status))
        answer.append(contentsOf: "}\n".utf8)
        return queue(connection, status: status, contentType: "application/problem+json", version: nil)
    }

    /// Queues `answer` (copied by MHD). On a suspended connection it is sent once resumed.
    private func queue(_ connection: OpaquePointer, status: UInt32, contentType: String, version: Int64?) -> MHD_Result {
        let response = answer.withUnsafeMutableBytes {
            MHD_create_response_from_buffer($0.count, $0.baseAddress, .RESPMEM_MUST_COPY)
        }
        guard let response else { return .NO }
        defer { MHD_destroy_response(response) }
        if let version {
            header.removeAll(keepingCapacity: true)
            header.append(UInt8(ascii: "\""))
            header.appendDecimal(version)
            header.append(contentsOf: [UInt8(ascii: "\""), 0])
            header.withUnsafeBufferPointer {
                guard let base = $0.baseAddress else { return }
                _ = MHD_add_response_header(response, "ETag", UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self))
            }
        }
        MHD_add_response_header(response, "Content-Type", contentType)
        // navprefs' headers, in its order: a state may be cached if revalidated, a problem not at all.
        MHD_add_response_header(response, "Cache-Control", version == nil ? "no-store" : "no-cache")
        MHD_add_response_header(response, "X-Content-Type-Options", "nosniff")
        requestCount += 1
        MHD_add_response_header(response, "X-Request-ID", "\(requestIDPrefix)-\(String(requestCount, radix: 16))")
        return MHD_queue_response(connection, status, response)
    }

    fileprivate func completed(_ context: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
        guard let raw = context.pointee else { return }
        Unmanaged<Request>.fromOpaque(raw).release()
        context.pointee = nil
    }
}

/// libmicrohttpd's callbacks: C function pointers, so no captures; the server comes as `cls`.
private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, upload, uploadSize, context in
    guard let cls, let connection, let url, let method, let uploadSize, let context else { return .NO }
    return Unmanaged<FloorServer>.fromOpaque(cls).takeUnretainedValue()
        .handle(connection, url, method, upload, uploadSize, context)
}

private let requestCompleted: MHD_RequestCompletedCallback = { cls, _, context, _ in
    guard let cls, let context else { return }
    Unmanaged<FloorServer>.fromOpaque(cls).takeUnretainedValue().completed(context)
}

/// One line on standard error (Glibc's `stderr` is a shared mutable global to Swift 6).
func printError(_ line: String) {
    var text = line + "\n"
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}
