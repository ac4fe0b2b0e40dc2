import Foundation
import Testing
@testable import Benchmarks

/// How busy the whole machine was over a span, and what that allows several processes to reach.
@Suite("Bench machine load")
struct MachineLoadTests {
    @Test func theSharesAreOfAllTheMachinesTimeInTheSpan() throws {
        let start = MachineLoad(busy: 100, idle: 50, stolen: 10)
        let end = MachineLoad(busy: 103.8, idle: 50.1, stolen: 10.1)  // 4 s of two cores: 3.8 busy
        let share = try #require(end.since(start))
        #expect(abs(share.busy - 0.95) < 1e-9 && abs(share.stolen - 0.025) < 1e-9)
        #expect(start.since(start) == nil, "no time passed: nothing to tell")
    }

    @Test func theCeilingIsWhatTheIdleCoresLeaveAndNeverMoreThanTheProcesses() {
        let busy = MachineLoad.ceilingNote("import", single: (busy: 0.95, stolen: 0), processes: 4, theirs: (busy: 0.99, stolen: 0.01))
        #expect(busy.contains("were 95% busy") && busy.contains("at most 1.05× of it here"), "\(busy)")
        #expect(busy.hasPrefix("import: from 1 process") && busy.contains("from 4 processes they were 99% busy (1% stolen)"), "\(busy)")
        let idle = MachineLoad.ceilingNote("import", single: (busy: 0.1, stolen: 0), processes: 4, theirs: nil)
        #expect(idle.contains("at most 4.00× of it here"), "\(idle)")
        let robbed = MachineLoad.ceilingNote("import", single: (busy: 0.4, stolen: 0.2), processes: 4, theirs: nil)
        #expect(robbed.contains("at most 2.00× of it here"), "\(robbed)")
    }

    @Test func theCountersAreReadFromThisMachine() throws {
        let start = try #require(MachineLoad.now(), "Linux has /proc/stat")
        #expect(start.busy > 0 && start.idle >= 0 && start.stolen >= 0)
        var spin = 0.0
        let until = Date().addingTimeInterval(0.2)
        while Date() < until { spin += 1 }  // some busy time for the counters to see
        let end = try #require(MachineLoad.now())
        #expect(end.busy > start.busy && spin > 0)
    }
}
