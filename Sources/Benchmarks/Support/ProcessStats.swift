import Foundation

/// What Linux's /proc says about this process: the peak resident set size (`VmHWM`) and the
/// calling thread's time on a CPU and waiting for one (`schedstat`); nil elsewhere.
enum ProcessStats {
    /// Resets the peak RSS to the current RSS (`5` into /proc/self/clear_refs, Linux ≥ 4.0).
    /// Memory the earlier cases freed is first handed back to the system (`malloc_trim`): the
    /// allocator keeps freed pages resident, and a case measured after others (the console after
    /// the import, in a whole `bench` run) would otherwise count them as its own.
    static func resetPeakMemory() -> Bool {
        _ = glibcMallocTrim(0)
        let descriptor = open("/proc/self/clear_refs", O_WRONLY)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return write(descriptor, "5", 1) == 1
    }

    /// The peak RSS in MiB.
    static func peakMegabytes() -> Double? { statusMegabytes("VmHWM:") }

    /// The current RSS in MiB.
    static func residentMegabytes() -> Double? { statusMegabytes("VmRSS:") }

    /// A kB field of /proc/self/status, in MiB.
    private static func statusMegabytes(_ field: String) -> Double? {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix(field) }
        return line?.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap { Double($0) }.map { $0 / 1024 }
    }

    /// User plus system CPU seconds of process `pid` ("self" for this one) from /proc/PID/stat
    /// (fields 14 and 15, in clock ticks: 10 ms on most kernels); nil when it cannot be read
    /// (gone, another machine's, or not Linux).
    static func cpuSeconds(pid: String) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        // After "PID (name)": state is field 3, so utime (14) and stime (15) are the 12th and 13th.
        let fields = text[text.index(after: close)...].split(separator: " ")
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard fields.count > 12, ticks > 0, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / ticks
    }

    static func threadSeconds() -> (running: Double, waiting: Double)? {
        let text = (try? String(contentsOfFile: "/proc/thread-self/schedstat", encoding: .utf8)) ?? ""
        let fields = text.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        return fields.count >= 2 ? (fields[0] / 1e9, fields[1] / 1e9) : nil
    }
}

/// glibc's `malloc_trim` (malloc.h, which the Glibc module does not export).
@_silgen_name("malloc_trim")
private func glibcMallocTrim(_ pad: Int) -> Int32
