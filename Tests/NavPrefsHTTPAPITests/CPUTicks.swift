import Foundation

/// CPU time (user + system, in clock ticks) a thread of this process has used.
func cpuTicks(ofThread threadID: Int32) throws -> Int {
    let stat = try String(contentsOfFile: "/proc/self/task/\(threadID)/stat", encoding: .utf8)
    guard let close = stat.lastIndex(of: ")") else { return 0 }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
}
