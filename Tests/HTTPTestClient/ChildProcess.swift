public import Foundation
import Synchronization

/// A child process for tests, started with `posix_spawn`. Not Foundation's `Process`: in Swift
/// 6.3.1 its `run()` over-reads `/proc/self/fd` entries and crashes now and then in a process that
/// spawns many children (swift-corelibs-foundation PR #5472, seen here in about one full test run
/// of five). The child gets /dev/null as input, the given descriptors as output, and no other
/// descriptor of the test process (`closefrom(3)` in the child).
public final class ChildProcess: Sendable {
    public let pid: pid_t
    private let exit = Mutex<Int32?>(nil)

    /// Starts `executable` with `arguments` and exactly `environment`; its standard output and
    /// error go to `output` and `errors` (descriptors of the caller, which keeps them).
    public init(_ executable: String, _ arguments: [String], environment: [String: String],
                output: Int32, errors: Int32) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, errors, 2)
        guard ChildProcess.addCloseFrom(&actions, 3) == 0 else { throw ChildProcessError.spawn(errno) }
        let argv = [executable] + arguments
        let envp = environment.map { "\($0.key)=\($0.value)" }
        var child: pid_t = 0
        let status = withCStrings(argv) { argvPointers in
            withCStrings(envp) { envpPointers in posix_spawn(&child, executable, &actions, nil, argvPointers, envpPointers) }
        }
        guard status == 0 else { throw ChildProcessError.spawn(status) }
        pid = child
    }

    /// Whether it still runs; reaps it once it has exited.
    public var isRunning: Bool { poll(blocking: false) == nil }

    /// Its exit status (128 + the signal for a killed process), once it has exited.
    public var exitStatus: Int32? { poll(blocking: false) }

    /// Waits until it exits; its exit status.
    @discardableResult
    public func wait() -> Int32 { poll(blocking: true) ?? -1 }

    public func signal(_ number: Int32) {
        if isRunning { kill(pid, number) }
    }

    private func poll(blocking: Bool) -> Int32? {
        exit.withLock { exit in
            if let exit { return exit }
            var status: Int32 = 0
            var result: pid_t
            repeat { result = waitpid(pid, &status, blocking ? 0 : WNOHANG) } while result == -1 && errno == EINTR
            guard result == pid else { return result == -1 ? -1 : nil }
            let signalled = status & 0x7F
            exit = signalled == 0 ? (status >> 8) & 0xFF : 128 + signalled
            return exit
        }
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), looked up at run time:
    /// Swift's Glibc module does not declare it.
    private static let addCloseFrom: @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32 = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            return { _, _ in ENOSYS }
        }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()
}

public enum ChildProcessError: Error {
    case spawn(Int32)
    case pipe(Int32)
}

/// A pipe whose two ends are closed in children (each child gets only what it is handed).
public func closeOnExecPipe() throws -> (read: Int32, write: Int32) {
    var descriptors: [Int32] = [-1, -1]
    guard pipe(&descriptors) == 0 else { throw ChildProcessError.pipe(errno) }
    // (Swift's Glibc has no pipe2; a child spawned in between closes them anyway: closefrom(3).)
    for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
    return (descriptors[0], descriptors[1])
}

/// Reads `descriptor` until end of file, handing each piece to `take`, then closes it.
public func readToEnd(_ descriptor: Int32, _ take: (Data) -> Void) {
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = read(descriptor, &buffer, buffer.count)
        if count > 0 { take(Data(buffer[0..<count])); continue }
        if count == -1 && errno == EINTR { continue }
        break
    }
    close(descriptor)
}

/// Runs `executable` to its end and returns its exit status and standard output (standard
/// error goes to the test's own).
public func runToEnd(_ executable: String, _ arguments: [String], environment: [String: String]) throws -> (status: Int32, output: String) {
    let pipe = try closeOnExecPipe()
    let child: ChildProcess
    do {
        child = try ChildProcess(executable, arguments, environment: environment, output: pipe.write, errors: 2)
    } catch {
        close(pipe.read)
        close(pipe.write)
        throw error
    }
    close(pipe.write)
    var output = Data()
    readToEnd(pipe.read) { output.append($0) }
    return (child.wait(), String(decoding: output, as: UTF8.self))
}

private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) } + [nil]
    defer { for copy in copies { free(copy) } }
    return copies.withUnsafeBufferPointer { body($0.baseAddress!) }
}
