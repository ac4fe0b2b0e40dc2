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

    static func threadSeconds() -> (running: Double, waiting: Double)? {
        let text = (try? String(contentsOfFile: "/proc/thread-self/schedstat", encoding: .utf8)) ?? ""
        let fields = text.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        return fields.count >= 2 ? (fields[0] / 1e9, fields[1] / 1e9) : nil
    }
}

/// glibc's `malloc_trim` (malloc.h, which the Glibc module does not export).
@_silgen_name("malloc_trim")
private func glibcMallocTrim(_ pad: Int) -> Int32
