import Foundation

/// The process metrics Prometheus' client libraries export under standard names, read from
/// Linux's /proc: resident and virtual memory, CPU time, open and maximum file descriptors,
/// start time.
struct ProcessMetrics {
    var residentBytes: Int?
    var virtualBytes: Int?
    var cpuSeconds: Double?
    var openFileDescriptors: Int?
    var maxFileDescriptors: Int?
    var startTimeSeconds: Double?

    static func read() -> ProcessMetrics {
        var metrics = ProcessMetrics()
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        if let statm = procText("/proc/self/statm") {
            let fields = statm.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if fields.count >= 2 {
                metrics.virtualBytes = fields[0] * pageSize
                metrics.residentBytes = fields[1] * pageSize
            }
        }
        // /proc/self/stat: the command name (field 2) may hold spaces, so count after its ')'.
        if let stat = procText("/proc/self/stat"),
           let close = stat.lastIndex(of: ")") {
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            // After ')': state is field 3, so utime (14) is at 11, stime (15) at 12, starttime (22) at 19.
            if fields.count > 19, let user = Double(fields[11]), let system = Double(fields[12]), let start = Double(fields[19]) {
                metrics.cpuSeconds = (user + system) / ticksPerSecond
                if let boot = bootTime() { metrics.startTimeSeconds = boot + start / ticksPerSecond }
            }
        }
        metrics.openFileDescriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.count
        var limit = rlimit()
        if unsafe getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max, limit.rlim_cur <= rlim_t(Int.max) {
            metrics.maxFileDescriptors = Int(limit.rlim_cur)
        }
        return metrics
    }

    /// Seconds since the epoch at boot (`btime` in /proc/stat).
    private static func bootTime() -> Double? {
        guard let stat = procText("/proc/stat") else { return nil }
        for line in stat.split(separator: "\n") where line.hasPrefix("btime ") {
            return Double(line.dropFirst(6).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    /// The whole of a `/proc` file. Foundation's `String(contentsOfFile:)` trusts the size `stat`
    /// gives, 0 for these, and reads one page: `btime` in `/proc/stat` comes after its long
    /// `intr` line, past the first page.
    private static func procText(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        return (try? handle.readToEnd()).map { String(decoding: $0, as: UTF8.self) }
    }
}
