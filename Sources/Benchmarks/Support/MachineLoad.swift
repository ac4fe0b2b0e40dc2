import Foundation

/// The whole machine's CPU time so far, from the first line of Linux's /proc/stat (every core,
/// every process: a measured import's own processes, the database server, anything else), to
/// tell how much of the machine a measured span kept busy. Nil elsewhere.
struct MachineLoad {
    /// Seconds of user, nice, system, irq and softirq time, summed over the cores.
    let busy: Double
    /// Seconds idle or waiting for I/O.
    let idle: Double
    /// Seconds the host gave to other machines while this one wanted a core (a VM's steal).
    let stolen: Double

    /// Over a span: the share of the machine's CPU time that was busy, and the share stolen.
    typealias Share = (busy: Double, stolen: Double)

    /// The counters now.
    static func now() -> MachineLoad? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = text.split(separator: "\n").first, line.hasPrefix("cpu ") else { return nil }
        let ticks = line.split(whereSeparator: \.isWhitespace).dropFirst().compactMap { Double($0) }
        guard ticks.count >= 8 else { return nil }
        let perSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard perSecond > 0 else { return nil }
        // user nice system idle iowait irq softirq steal (guest time is counted in user already)
        return MachineLoad(busy: (ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6]) / perSecond,
                           idle: (ticks[3] + ticks[4]) / perSecond, stolen: ticks[7] / perSecond)
    }

    /// From `start` to these counters: the share of the machine's CPU time that was busy and the
    /// share stolen by the host; nil when too little time passed to tell.
    func since(_ start: MachineLoad) -> Share? {
        let busy = self.busy - start.busy, idle = self.idle - start.idle, stolen = self.stolen - start.stolen
        let total = busy + idle + stolen
        guard total > 0.05 else { return nil }
        return (busy / total, stolen / total)
    }

    /// The note for an import from one process that kept `single` of the machine busy: how many
    /// times its throughput `processes` of them can reach here, where they share the same cores,
    /// and how busy they kept it (`theirs`).
    static func ceilingNote(_ what: String, single: Share, processes: Int,
                            theirs: Share?) -> String {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let ceiling = single.busy > 0 ? min(Double(processes), max(0, 1 - single.stolen) / single.busy) : Double(processes)
        var text = what + String(format: ": from 1 process the machine's %d cores were %.0f%% busy (%.2f cores: the importer, the server, anything else; %.0f%% stolen by the host), so %d processes sharing them can reach at most %.2f× of it here",
                                 cores, single.busy * 100, single.busy * Double(cores), single.stolen * 100, processes, ceiling)
        if let theirs { text += String(format: "; from %d processes they were %.0f%% busy (%.0f%% stolen)", processes, theirs.busy * 100, theirs.stolen * 100) }
        return text
    }
}
