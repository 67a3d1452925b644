import Foundation
import Glibc

/// Which process holds a database file's `flock`, and where it listens, as Linux's `/proc`
/// tells: for the message that refuses a second service on the file, so that the operator
/// knows which process to stop (or which port already serves the data).
enum LockHolder {
    /// `PID 4242, listening on port 8080` for the process holding an exclusive `flock` on the
    /// file `descriptor` has open; `PID 4242` when its sockets cannot be read (another user's
    /// process); `nil` when `/proc/locks` names no holder.
    static func describe(fileOpenAs descriptor: Int32) -> String? {
        var status = stat()
        guard fstat(descriptor, &status) == 0, let pid = flockHolder(device: UInt64(status.st_dev), inode: UInt64(status.st_ino)) else {
            return nil
        }
        let ports = listeningPorts(of: pid)
        switch ports.count {
        case 0: return "PID \(pid)"
        case 1: return "PID \(pid), listening on port \(ports[0])"
        default: return "PID \(pid), listening on ports \(ports.map(String.init).joined(separator: ", "))"
        }
    }

    /// The process of the `FLOCK WRITE` line of `/proc/locks` on that device and inode
    /// (`3: FLOCK  ADVISORY  WRITE 4242 fe:00:16220741 0 EOF`; device as major:minor in hex).
    static func flockHolder(device: UInt64, inode: UInt64) -> Int32? {
        guard let locks = procText("/proc/locks") else { return nil }
        // glibc's major() and minor() of a `dev_t`.
        let major = (device >> 8) & 0xfff | (device >> 32) & ~0xfff
        let minor = device & 0xff | (device >> 12) & ~0xff
        for line in locks.split(separator: "\n") where !line.contains("->") {  // "->": a process waiting for the lock
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1] == "FLOCK", fields[3] == "WRITE", let pid = Int32(fields[4]), pid > 0 else { continue }
            let file = fields[5].split(separator: ":")
            if file.count == 3, UInt64(file[0], radix: 16) == major, UInt64(file[1], radix: 16) == minor, UInt64(file[2]) == inode {
                return pid
            }
        }
        return nil
    }

    /// The TCP ports `pid` listens on (IPv4 and IPv6, in order, once each): its socket
    /// descriptors (`/proc/PID/fd`, readable for the same user or root) matched by inode with
    /// the listening sockets of `/proc/net/tcp` and `tcp6`.
    static func listeningPorts(of pid: Int32) -> [Int] {
        let directory = "/proc/\(pid)/fd"
        guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var sockets = Set<Substring>()
        for name in descriptors {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + name),
                  target.hasPrefix("socket:["), target.hasSuffix("]") else { continue }
            sockets.insert(Substring(target.dropFirst(8).dropLast()))
        }
        var ports: [Int] = []
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = procText(table) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count > 9, fields[3] == "0A", sockets.contains(fields[9]),
                      let port = fields[1].split(separator: ":").last.flatMap({ Int($0, radix: 16) }), !ports.contains(port)
                else { continue }
                ports.append(port)
            }
        }
        return ports
    }

    /// The whole of a `/proc` file. Foundation's `String(contentsOfFile:)` and `Data(contentsOf:)`
    /// trust the size `stat` gives, 0 for these, and read one page: of a `/proc/net/tcp` with a
    /// few hundred sockets they returned 26 lines, and the listening port was not among them.
    static func procText(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        return (try? handle.readToEnd()).map { String(decoding: $0, as: UTF8.self) }
    }
}
